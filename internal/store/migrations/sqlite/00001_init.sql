-- +goose Up
CREATE TABLE accounts (
  id INTEGER PRIMARY KEY,
  handle TEXT NOT NULL UNIQUE,
  password_hash TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE TABLE tokens (
  hash TEXT PRIMARY KEY,
  account_id BIGINT NOT NULL REFERENCES accounts(id),
  kind TEXT NOT NULL,
  csrf TEXT NOT NULL DEFAULT '',
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE INDEX tokens_account ON tokens(account_id);
CREATE TABLE wasm (
  sha256 TEXT PRIMARY KEY,
  data BLOB NOT NULL
);
CREATE TABLE bots (
  id INTEGER PRIMARY KEY,
  account_id BIGINT NOT NULL REFERENCES accounts(id),
  game TEXT NOT NULL,
  name TEXT NOT NULL,
  spec TEXT NOT NULL DEFAULT '',
  retired INTEGER NOT NULL DEFAULT 0,
  active_version BIGINT,
  mu DOUBLE PRECISION NOT NULL,
  sigma DOUBLE PRECISION NOT NULL,
  score DOUBLE PRECISION NOT NULL,
  matches BIGINT NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  UNIQUE (account_id, game, name)
);
CREATE INDEX bots_leaderboard ON bots(game, score DESC, id);
CREATE TABLE versions (
  id INTEGER PRIMARY KEY,
  bot_id BIGINT NOT NULL REFERENCES bots(id),
  number BIGINT NOT NULL,
  sha256 TEXT NOT NULL,
  size BIGINT NOT NULL,
  state TEXT NOT NULL,
  message TEXT NOT NULL DEFAULT '',
  smoke_match BIGINT,
  created_at BIGINT NOT NULL,
  UNIQUE (bot_id, number)
);
CREATE TABLE matches (
  id INTEGER PRIMARY KEY,
  game TEXT NOT NULL,
  params TEXT NOT NULL,
  seed BIGINT NOT NULL,
  kind TEXT NOT NULL,
  state TEXT NOT NULL,
  reason TEXT NOT NULL DEFAULT '',
  turns BIGINT NOT NULL DEFAULT 0,
  replay BLOB,
  created_at BIGINT NOT NULL,
  finished_at BIGINT
);
CREATE INDEX matches_state ON matches(state, id);
CREATE INDEX matches_game ON matches(game, id);
CREATE TABLE match_seats (
  match_id BIGINT NOT NULL REFERENCES matches(id),
  seat INTEGER NOT NULL,
  bot_id BIGINT NOT NULL REFERENCES bots(id),
  version_id BIGINT,
  score BIGINT NOT NULL DEFAULT 0,
  place INTEGER NOT NULL DEFAULT 0,
  statuses TEXT NOT NULL DEFAULT '{}',
  fuel BIGINT NOT NULL DEFAULT 0,
  stderr BLOB,
  PRIMARY KEY (match_id, seat)
);
CREATE INDEX match_seats_bot ON match_seats(bot_id, match_id);
CREATE TABLE rating_history (
  id INTEGER PRIMARY KEY,
  bot_id BIGINT NOT NULL REFERENCES bots(id),
  match_id BIGINT NOT NULL REFERENCES matches(id),
  mu DOUBLE PRECISION NOT NULL,
  sigma DOUBLE PRECISION NOT NULL,
  score DOUBLE PRECISION NOT NULL,
  at BIGINT NOT NULL
);
CREATE INDEX rating_history_bot ON rating_history(bot_id, id);

-- +goose Down
DROP TABLE rating_history;
DROP TABLE match_seats;
DROP TABLE matches;
DROP TABLE versions;
DROP TABLE bots;
DROP TABLE wasm;
DROP TABLE tokens;
DROP TABLE accounts;
