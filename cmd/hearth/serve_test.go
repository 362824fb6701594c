package main

import "testing"

func TestCostTiersAreThreeNumbersRisingFromLowToHigh(t *testing.T) {
	got, err := parseCostTiers("1, 1.5,2")
	if err != nil || got != [3]float64{1, 1.5, 2} {
		t.Fatalf("parseCostTiers = %v, %v", got, err)
	}
	for _, bad := range []string{"1,2", "1,x,2", ""} {
		if _, err := parseCostTiers(bad); err == nil {
			t.Errorf("%q was accepted", bad)
		}
	}
}
