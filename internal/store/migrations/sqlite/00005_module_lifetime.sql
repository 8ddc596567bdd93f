-- A replaced version keeps its module for a day (queued matches and
-- determinism checks may still need it), then the module is deleted and the
-- version marked pruned (Store.PruneModules); its record stays.
-- +goose Up
ALTER TABLE versions ADD COLUMN replaced_at BIGINT;
ALTER TABLE versions ADD COLUMN pruned INTEGER NOT NULL DEFAULT 0;
-- Versions replaced before this migration: their day starts now (one may
-- have been replaced a minute ago).
UPDATE versions SET replaced_at = CAST(strftime('%s', 'now') AS BIGINT) * 1000 WHERE state = 'replaced';

-- +goose Down
ALTER TABLE versions DROP COLUMN pruned;
ALTER TABLE versions DROP COLUMN replaced_at;
