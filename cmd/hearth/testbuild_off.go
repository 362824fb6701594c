//go:build !hearthtest

package main

// testBuild: an ordinary build, the one owners run, refuses serve's test
// hooks (HEARTH_TEST_NOW, HEARTH_TEST_PAUSE_AT) rather than honour one
// left in its environment.
const testBuild = false
