// Package pushtest is a push service on loopback for tests: a browser's
// side of a subscription (its P-256 key pair and auth secret) and an
// endpoint that checks each request's VAPID JWT (RFC 8292) against the
// application server's public key and decrypts its aes128gcm payload
// (RFC 8291) with the subscription's keys, and refuses a Topic RFC 8030
// does not allow. It is written from the RFCs
// with crypto/ecdh and HKDF, independent of the library hearth sends with.
package pushtest

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/hkdf"
)

var b64 = base64.RawURLEncoding

// Message is one push the endpoint accepted: the decrypted payload, and
// its Topic (RFC 8030 5.4: a later push of the same topic replaces this one
// while it is undelivered).
type Message struct {
	Plaintext []byte
	TTL       string
	Topic     string
}

// Service is a push endpoint on loopback for one subscription.
type Service struct {
	srv       *httptest.Server
	key       *ecdh.PrivateKey
	auth      []byte
	vapidKey  string // the application server's public key, base64url
	mu        sync.Mutex
	messages  []Message
	failures  []string
	status    int // answer to a valid push (default 201)
	delivered chan struct{}
}

// New starts a push endpoint that accepts pushes signed by the holder of
// vapidPublic (base64url, uncompressed P-256 point), as hearth serves it.
func New(vapidPublic string) *Service {
	key, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		panic(err)
	}
	auth := make([]byte, 16)
	rand.Read(auth)
	s := &Service{key: key, auth: auth, vapidKey: vapidPublic, status: http.StatusCreated, delivered: make(chan struct{}, 64)}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Close stops the endpoint.
func (s *Service) Close() { s.srv.Close() }

// Endpoint is the subscription's endpoint URL.
func (s *Service) Endpoint() string { return s.srv.URL + "/push/sub-1" }

// P256dh is the subscription's public key as PushSubscription.toJSON gives it.
func (s *Service) P256dh() string { return b64.EncodeToString(s.key.PublicKey().Bytes()) }

// Auth is the subscription's auth secret as PushSubscription.toJSON gives it.
func (s *Service) Auth() string { return b64.EncodeToString(s.auth) }

// Answer makes the endpoint answer every later valid push with status
// (410: the subscription is gone).
func (s *Service) Answer(status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status = status
}

// Messages are the pushes accepted so far, decrypted.
func (s *Service) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.messages...)
}

// Failures are the requests refused, with why (a bad signature, audience,
// expiry or payload).
func (s *Service) Failures() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.failures...)
}

// Delivered receives once per request the endpoint handled.
func (s *Service) Delivered() <-chan struct{} { return s.delivered }

func (s *Service) serve(w http.ResponseWriter, r *http.Request) {
	defer func() { s.delivered <- struct{}{} }()
	body, _ := io.ReadAll(io.LimitReader(r.Body, 8192))
	err := s.checkVAPID(r)
	if err == nil {
		err = checkTopic(r.Header.Get("Topic"))
	}
	var plain []byte
	if err == nil {
		if r.Header.Get("Content-Encoding") != "aes128gcm" {
			err = errors.New("Content-Encoding is not aes128gcm")
		} else {
			plain, err = s.decrypt(body)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.failures = append(s.failures, err.Error())
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}
	if s.status == http.StatusCreated {
		s.messages = append(s.messages, Message{Plaintext: plain, TTL: r.Header.Get("TTL"), Topic: r.Header.Get("Topic")})
	}
	w.WriteHeader(s.status)
}

// checkTopic refuses a Topic RFC 8030 does not allow: more than 32
// characters, or any outside the URL- and filename-safe base64 alphabet.
func checkTopic(topic string) error {
	if len(topic) > 32 {
		return fmt.Errorf("Topic %q is longer than 32 characters", topic)
	}
	for _, c := range topic {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return fmt.Errorf("Topic %q has %q, outside the base64url alphabet", topic, c)
		}
	}
	return nil
}

// checkVAPID checks Authorization: vapid t=<JWT>, k=<key> (RFC 8292): k is
// the expected server key, the JWT is ES256-signed by it, aud is the
// endpoint's origin, exp is in the future and at most 24 hours away.
func (s *Service) checkVAPID(r *http.Request) error {
	h := r.Header.Get("Authorization")
	rest, ok := strings.CutPrefix(h, "vapid ")
	if !ok {
		return fmt.Errorf("Authorization %q is not vapid", h)
	}
	params := map[string]string{}
	for _, p := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		params[k] = v
	}
	if params["k"] != s.vapidKey {
		return fmt.Errorf("vapid k=%q, want the served key %q", params["k"], s.vapidKey)
	}
	parts := strings.Split(params["t"], ".")
	if len(parts) != 3 {
		return errors.New("vapid t is not a JWT")
	}
	var header struct{ Alg, Typ string }
	if err := decodeJSON(parts[0], &header); err != nil || header.Alg != "ES256" {
		return fmt.Errorf("JWT header %+v: want ES256", header)
	}
	raw, err := b64.DecodeString(s.vapidKey)
	if err != nil {
		return err
	}
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), raw)
	if err != nil {
		return fmt.Errorf("served key is not a P-256 point: %w", err)
	}
	sig, err := b64.DecodeString(parts[2])
	if err != nil || len(sig) != 64 {
		return errors.New("JWT signature is not 64 bytes")
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if !ecdsa.Verify(pub, digest[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return errors.New("JWT signature does not verify with the served key")
	}
	var claims struct {
		Aud string `json:"aud"`
		Exp int64  `json:"exp"`
		Sub string `json:"sub"`
	}
	if err := decodeJSON(parts[1], &claims); err != nil {
		return err
	}
	if want := "http://" + r.Host; claims.Aud != want {
		return fmt.Errorf("JWT aud %q, want %q", claims.Aud, want)
	}
	exp := time.Unix(claims.Exp, 0)
	if now := time.Now(); !exp.After(now) || exp.After(now.Add(24*time.Hour)) {
		return fmt.Errorf("JWT exp %s is not in the next 24 hours", exp)
	}
	if !strings.HasPrefix(claims.Sub, "mailto:") && !strings.HasPrefix(claims.Sub, "https:") {
		return fmt.Errorf("JWT sub %q is not a contact URL", claims.Sub)
	}
	return nil
}

// decrypt opens an aes128gcm body (RFC 8188 with RFC 8291's keys): one
// record, header salt(16) rs(4) idlen(1) keyid(the sender's public key).
func (s *Service) decrypt(body []byte) ([]byte, error) {
	if len(body) < 21 {
		return nil, errors.New("body shorter than the aes128gcm header")
	}
	salt, rs, idlen := body[:16], binary.BigEndian.Uint32(body[16:20]), int(body[20])
	if len(body) < 21+idlen || idlen != 65 {
		return nil, fmt.Errorf("keyid of %d bytes, want the sender's 65-byte key", idlen)
	}
	asPublic, ciphertext := body[21:21+idlen], body[21+idlen:]
	if uint32(len(ciphertext)) > rs {
		return nil, errors.New("more than one record")
	}
	peer, err := ecdh.P256().NewPublicKey(asPublic)
	if err != nil {
		return nil, err
	}
	secret, err := s.key.ECDH(peer)
	if err != nil {
		return nil, err
	}
	keyInfo := append(append([]byte("WebPush: info\x00"), s.key.PublicKey().Bytes()...), asPublic...)
	ikm := expand(hkdf.Extract(sha256.New, secret, s.auth), keyInfo, 32)
	prk := hkdf.Extract(sha256.New, ikm, salt)
	cek := expand(prk, []byte("Content-Encoding: aes128gcm\x00"), 16)
	nonce := expand(prk, []byte("Content-Encoding: nonce\x00"), 12)
	block, err := aes.NewCipher(cek)
	if err != nil {
		return nil, err
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	plain, err := gcm.Open(nil, nonce, ciphertext, nil)
	if err != nil {
		return nil, fmt.Errorf("payload does not decrypt with the subscription's keys: %w", err)
	}
	plain = bytes.TrimRight(plain, "\x00")
	if len(plain) == 0 || plain[len(plain)-1] != 2 {
		return nil, errors.New("last record lacks its 0x02 delimiter")
	}
	return plain[:len(plain)-1], nil
}

func expand(prk, info []byte, n int) []byte {
	out := make([]byte, n)
	if _, err := io.ReadFull(hkdf.Expand(sha256.New, prk, info), out); err != nil {
		panic(err)
	}
	return out
}

func decodeJSON(part string, v any) error {
	b, err := b64.DecodeString(part)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}
