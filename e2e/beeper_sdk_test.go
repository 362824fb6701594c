package e2e

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"hearth/beeper/beepertest"
)

// fakeControl posts body to one of the fake Beeper's own control routes (not Beeper's API).
func fakeControl(t *testing.T, beeperURL, path string, body any) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, beeperURL+path, bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer e2e-token")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("fake control %s: %d", path, resp.StatusCode)
	}
}

func TestServeReadsBeeperBaseURLBeforeTheSDK4Name(t *testing.T) {
	t.Parallel()
	beeperURL := startFakeBeeper(t)
	const text = "Reached through BEEPER_BASE_URL"
	fakeControl(t, beeperURL, beepertest.IncomingPath, map[string]string{"chatId": beepertest.AnaChatID, "senderId": "@ana:beeper.local", "text": text})
	// SDK 4's name points at nothing: only SDK 5's reaches the fake.
	srv := startServerEnv(t, []string{"BEEPER_BASE_URL=" + beeperURL, "BEEPER_DESKTOP_BASE_URL=http://" + freeAddr(t), "BEEPER_ACCESS_TOKEN=e2e-token"}, "--demo")
	owner := loginOwner(t, srv.URL)
	status, d, err := owner.page(http.MethodGet, "/messages/%21ana-okafor:beeper.local", nil)
	if err != nil {
		t.Fatal(err)
	}
	if status != http.StatusOK || !strings.Contains(d.Find(`[data-testid="messages"]`).Text(), text) {
		t.Fatalf("Messages answered %d without the message the fake at BEEPER_BASE_URL holds:\n%s", status, d.Text())
	}
}
