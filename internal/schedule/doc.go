// Package schedule holds hearth's schedules apart from their ledger:
// Timing A (zone resolution, one-off and cron rules with hearth's own DST
// gap and fold handling, due evaluation on a given clock) and Store B
// (strict Markdown definition files, their canonical fingerprint, and a
// contained reader and writer of them under DATA/schedules). It opens no
// database: the ledger (models), the HTTP API and the CLI build on it, and
// the contract uses its LoadZone.
package schedule
