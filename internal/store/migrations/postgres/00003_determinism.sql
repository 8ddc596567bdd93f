-- A sample of finished matches is run a second time on another worker and
-- the replays compared byte for byte (internal/server/scale.go): '' not
-- checked, 'checked' the same, 'mismatch' a second run differed.
-- +goose Up
ALTER TABLE matches ADD COLUMN determinism TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE matches DROP COLUMN determinism;
