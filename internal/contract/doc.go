// Package contract is the agent contract: the JSON shapes hearth's API and
// its runner exchange, their constants and bounds, and the redaction a
// refused publication's errors get, defined once for both sides (no store,
// no I/O). The rest of the contract (Result and its *In types, its limits,
// parsing and validation) moves here from models next.
package contract
