// Package contract is the agent contract, defined once for hearth and its
// runner: the publication (Result and its *In types) and the other API
// inputs, their limits and enums, strict parsing and shape validation with
// JSON Pointer errors, and the JSON shapes hearth answers (the agent
// context, runs, wake-ups, health, the due report). It links no store and
// no network; its one reach outside memory is internal/zone (a zone's
// validity, which may read the system's zone database). Checks
// against stored rows stay in models, which calls it.
package contract
