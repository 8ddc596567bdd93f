-- Ratings are applied in the order matches were created: a finished rated
-- match waits (applied = 0) while an earlier rated match of one of its bots
-- is still queued or running.
-- +goose Up
ALTER TABLE matches ADD COLUMN applied INTEGER NOT NULL DEFAULT 0;
UPDATE matches SET applied = 1 WHERE kind = 'rated' AND state = 'finished';
CREATE INDEX matches_kind_state ON matches(kind, state, id);

-- +goose Down
DROP INDEX matches_kind_state;
ALTER TABLE matches DROP COLUMN applied;
