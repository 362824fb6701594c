//go:build hearthtest

package main

// testBuild: this binary was built with -tags hearthtest (the e2e suite's
// build), so serve honours HEARTH_TEST_NOW and HEARTH_TEST_PAUSE_AT.
const testBuild = true
