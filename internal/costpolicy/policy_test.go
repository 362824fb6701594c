package costpolicy

import "testing"

func TestAPolicyRefusesFallingTiersAndUnknownPriorities(t *testing.T) {
	for _, p := range []Policy{{Tiers: [3]float64{2, 1.5, 1}}, {Tiers: [3]float64{0, 1, 2}}, {Jobs: map[string]string{"x": "urgent"}}} {
		if p.Check() == nil {
			t.Errorf("%+v was accepted", p)
		}
	}
	if err := (Policy{Tiers: [3]float64{1, 1, 3}, Jobs: map[string]string{"x": Low}}).Check(); err != nil {
		t.Fatal(err)
	}
}
