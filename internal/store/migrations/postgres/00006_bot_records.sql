-- Each bot's record in rated matches, by the number of players: a win is a
-- first place alone, a draw a first place shared, a loss any other place;
-- last_at is the time of its last rated match. The trigger keeps it as each
-- rating change is written (one row of rating_history per bot and rated
-- match, in the transaction that applies the match), so a leaderboard reads
-- a row per bot whatever the number of matches.
-- +goose Up
CREATE TABLE bot_records (
  bot_id BIGINT NOT NULL REFERENCES bots(id),
  players INTEGER NOT NULL,
  wins BIGINT NOT NULL DEFAULT 0,
  draws BIGINT NOT NULL DEFAULT 0,
  losses BIGINT NOT NULL DEFAULT 0,
  last_at BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (bot_id, players)
);
INSERT INTO bot_records (bot_id, players, wins, draws, losses, last_at)
SELECT rh.bot_id, n.players,
  SUM(CASE WHEN ms.place = 1 AND n.firsts = 1 THEN 1 ELSE 0 END),
  SUM(CASE WHEN ms.place = 1 AND n.firsts > 1 THEN 1 ELSE 0 END),
  SUM(CASE WHEN ms.place <> 1 THEN 1 ELSE 0 END),
  MAX(rh.at)
FROM rating_history rh
JOIN (SELECT match_id, bot_id, MIN(place) AS place FROM match_seats GROUP BY match_id, bot_id) ms ON ms.match_id = rh.match_id AND ms.bot_id = rh.bot_id
JOIN (SELECT match_id, COUNT(*) AS players, SUM(CASE WHEN place = 1 THEN 1 ELSE 0 END) AS firsts FROM match_seats GROUP BY match_id) n ON n.match_id = rh.match_id
GROUP BY rh.bot_id, n.players;
-- +goose StatementBegin
CREATE FUNCTION bot_records_count() RETURNS trigger AS $$
BEGIN
  INSERT INTO bot_records (bot_id, players, wins, draws, losses, last_at)
  SELECT NEW.bot_id, n.players,
    CASE WHEN ms.place = 1 AND n.firsts = 1 THEN 1 ELSE 0 END,
    CASE WHEN ms.place = 1 AND n.firsts > 1 THEN 1 ELSE 0 END,
    CASE WHEN ms.place <> 1 THEN 1 ELSE 0 END,
    NEW.at
  FROM (SELECT MIN(place) AS place FROM match_seats WHERE match_id = NEW.match_id AND bot_id = NEW.bot_id) ms,
    (SELECT COUNT(*) AS players, SUM(CASE WHEN place = 1 THEN 1 ELSE 0 END) AS firsts FROM match_seats WHERE match_id = NEW.match_id) n
  WHERE ms.place IS NOT NULL
  ON CONFLICT (bot_id, players) DO UPDATE SET wins = bot_records.wins + EXCLUDED.wins, draws = bot_records.draws + EXCLUDED.draws,
    losses = bot_records.losses + EXCLUDED.losses, last_at = GREATEST(bot_records.last_at, EXCLUDED.last_at);
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
-- +goose StatementEnd
CREATE TRIGGER bot_records_count AFTER INSERT ON rating_history FOR EACH ROW EXECUTE FUNCTION bot_records_count();

-- +goose Down
DROP TRIGGER bot_records_count ON rating_history;
DROP FUNCTION bot_records_count();
DROP TABLE bot_records;
