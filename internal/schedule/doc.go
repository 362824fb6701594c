// Package schedule holds the pure parts of hearth's schedules (issue 10):
// Timing A (zone resolution, one-off and cron rules with hearth's own DST
// gap and fold handling, due evaluation on a given clock) and Store B
// (strict Markdown definition files, their canonical fingerprint, and a
// contained reader and writer). It opens no database: the ledger, the HTTP
// API, the CLI and the runner build on it.
package schedule
