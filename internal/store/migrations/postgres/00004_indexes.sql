-- Indexes for lists and background queries whose cost must not grow with
-- the number of stored matches (docs/performance.md, "List latency").
-- +goose Up
-- Ratings waiting to be applied: rated matches with applied = 0 in a state
-- that can still be applied (queued, running, finished), without walking
-- every applied one.
CREATE INDEX matches_pending ON matches(kind, applied, state, id);
-- The matchmaker's recent history of a game: its last rated matches, and
-- the bots that played one since a moment.
CREATE INDEX matches_game_kind ON matches(game, kind, id);
CREATE INDEX matches_game_kind_created ON matches(game, kind, created_at);
-- A bot's rating history, newest first, by match.
CREATE INDEX rating_history_bot_match ON rating_history(bot_id, match_id);
-- Finding the upload a smoke match tries.
CREATE INDEX versions_smoke_match ON versions(smoke_match);
-- Purging expired tokens and sessions.
CREATE INDEX tokens_expires ON tokens(expires_at);
-- How many rated matches each version has had scheduled, kept as a count
-- rather than counted over every match at each turn of the matchmaker.
ALTER TABLE versions ADD COLUMN rated BIGINT NOT NULL DEFAULT 0;
UPDATE versions SET rated = (SELECT COUNT(*) FROM match_seats ms JOIN matches m ON m.id = ms.match_id
  WHERE ms.version_id = versions.id AND m.kind = 'rated');

-- +goose Down
ALTER TABLE versions DROP COLUMN rated;
DROP INDEX tokens_expires;
DROP INDEX versions_smoke_match;
DROP INDEX rating_history_bot_match;
DROP INDEX matches_game_kind_created;
DROP INDEX matches_game_kind;
DROP INDEX matches_pending;
