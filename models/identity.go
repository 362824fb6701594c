package models

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"
	"gorm.io/gorm"
)

// Agent credential scopes.
const (
	ScopeContextRead       = "context:read"
	ScopeResultsPublish    = "results:publish"
	ScopeObservationsWrite = "observations:write"
	// ScopeSchedulesRead lists schedules and reads due work; it changes nothing.
	ScopeSchedulesRead = "schedules:read"
	// ScopeSchedulesAdmin creates and cancels schedules: an operator's
	// credential, never given by default (Authority A).
	ScopeSchedulesAdmin = "schedules:admin"
	// ScopeRunsWrite starts, claims and reports the runner's own runs.
	ScopeRunsWrite = "runs:write"
)

// AllScopes are every scope a credential may carry (`hearth token create --scopes`).
var AllScopes = []string{ScopeContextRead, ScopeResultsPublish, ScopeObservationsWrite, ScopeSchedulesRead, ScopeSchedulesAdmin, ScopeRunsWrite}

// DefaultScopes are what `hearth token create` grants without --scopes: the
// reasoning agent's read and publish, and its runner's schedule reads and runs. Posting observations
// is a fetcher's job and schedules:admin an operator's: each is asked for
// by name, so a default token's powers do not grow when hearth does.
var DefaultScopes = []string{ScopeContextRead, ScopeResultsPublish, ScopeSchedulesRead, ScopeRunsWrite}

// DemoScopes are the demo agent's: an agent and its fetcher, never an operator.
var DemoScopes = []string{ScopeContextRead, ScopeResultsPublish, ScopeObservationsWrite, ScopeSchedulesRead, ScopeRunsWrite}

// SessionLifetime is how long an owner session lasts after login.
const SessionLifetime = 30 * 24 * time.Hour

// Identity errors.
var (
	// ErrUnauthorized means a missing, unknown, revoked or expired credential.
	ErrUnauthorized = errors.New("unauthorized")
	// ErrNoOwner means no passphrase has been set yet.
	ErrNoOwner = errors.New("no owner passphrase set: run hearth owner passwd")
	// ErrInvalidInput means an admin argument was rejected.
	ErrInvalidInput = errors.New("invalid input")
)

// AgentCredential is a bearer token an agent publishes with.
type AgentCredential struct {
	ID         string
	Name       string
	TokenHash  string
	Scopes     string
	CreatedAt  time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
}

// HasScope reports whether the credential carries scope.
func (c AgentCredential) HasScope(scope string) bool {
	return slices.Contains(strings.Fields(c.Scopes), scope)
}

// OwnerSession is a browser session of the owner.
type OwnerSession struct {
	TokenHash  string `gorm:"primaryKey"`
	CreatedAt  time.Time
	LastSeenAt time.Time
	ExpiresAt  time.Time
}

type owner struct {
	ID           int
	PasswordHash string
	UpdatedAt    time.Time
}

func (owner) TableName() string { return "owner" }

var credentialName = regexp.MustCompile(`^[A-Za-z0-9._:@-]{1,64}$`)

// tokenPrefix marks hearth agent tokens so they are recognisable in a leak scan.
const tokenPrefix = "hearth_"

func randomToken() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// ValidateCredential checks a new credential's name and scopes, so the CLI
// can refuse them before it opens (and so creates) a data dir.
func ValidateCredential(name string, scopes []string) error {
	if !credentialName.MatchString(name) {
		return fmt.Errorf("models: credential name must be 1-64 of [A-Za-z0-9._:@-]: %w", ErrInvalidInput)
	}
	for _, sc := range scopes {
		if !slices.Contains(AllScopes, sc) {
			return fmt.Errorf("models: unknown scope %q (allowed: %s): %w", sc, strings.Join(AllScopes, ", "), ErrInvalidInput)
		}
	}
	return nil
}

// CreateCredential mints an agent credential and returns it with the token,
// which is shown once and never stored.
func (s *Store) CreateCredential(ctx context.Context, name string, scopes []string) (AgentCredential, string, error) {
	if err := ValidateCredential(name, scopes); err != nil {
		return AgentCredential{}, "", err
	}
	token := tokenPrefix + randomToken()
	cred := AgentCredential{
		ID:        "cred_" + randomToken()[:12],
		Name:      name,
		TokenHash: hashToken(token),
		Scopes:    strings.Join(scopes, " "),
		CreatedAt: s.clock(),
	}
	_, err := s.commit(ctx, func(t *txn) error {
		var n int64
		if err := t.Model(&AgentCredential{}).Where("name = ? AND revoked_at IS NULL", name).Count(&n).Error; err != nil {
			return err
		}
		if n > 0 {
			return fmt.Errorf("an active credential named %q exists; revoke it first: %w", name, ErrInvalidInput)
		}
		return t.Create(&cred).Error
	})
	if err != nil {
		return AgentCredential{}, "", fmt.Errorf("models: create credential: %w", err)
	}
	return cred, token, nil
}

// Credentials lists every credential, newest first, revoked ones included.
func (s *Store) Credentials(ctx context.Context) ([]AgentCredential, error) {
	var creds []AgentCredential
	if err := s.rdb.WithContext(ctx).Order("created_at DESC, id").Find(&creds).Error; err != nil {
		return nil, fmt.Errorf("models: credentials: %w", err)
	}
	return creds, nil
}

// RevokeCredential revokes by ID or by active name; revoking twice is ErrNotFound.
func (s *Store) RevokeCredential(ctx context.Context, idOrName string) (AgentCredential, error) {
	var cred AgentCredential
	_, err := s.commit(ctx, func(t *txn) error {
		err := t.Where("(id = ? OR name = ?) AND revoked_at IS NULL", idOrName, idOrName).First(&cred).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		now := s.clock()
		cred.RevokedAt = &now
		return t.Model(&cred).Update("revoked_at", now).Error
	})
	if err != nil {
		return AgentCredential{}, fmt.Errorf("models: revoke %s: %w", idOrName, err)
	}
	return cred, nil
}

// AuthenticateAgent resolves a bearer token to an active credential.
func (s *Store) AuthenticateAgent(ctx context.Context, token string) (AgentCredential, error) {
	if !strings.HasPrefix(token, tokenPrefix) {
		return AgentCredential{}, ErrUnauthorized
	}
	var cred AgentCredential
	err := s.rdb.WithContext(ctx).Where("token_hash = ? AND revoked_at IS NULL", hashToken(token)).First(&cred).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return AgentCredential{}, ErrUnauthorized
	}
	if err != nil {
		return AgentCredential{}, fmt.Errorf("models: authenticate: %w", err)
	}
	return cred, nil
}

// SetOwnerPassphrase stores a bcrypt hash of passphrase and ends every session.
func (s *Store) SetOwnerPassphrase(ctx context.Context, passphrase string) error {
	if len(passphrase) < 8 || len(passphrase) > 72 {
		return fmt.Errorf("models: passphrase must be 8-72 bytes: %w", ErrInvalidInput)
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(passphrase), s.passphraseCost)
	if err != nil {
		return fmt.Errorf("models: passphrase: %w", err)
	}
	_, err = s.commit(ctx, func(t *txn) error {
		o := owner{ID: 1, PasswordHash: string(hash), UpdatedAt: s.clock()}
		if err := t.Save(&o).Error; err != nil {
			return err
		}
		t.touch(touchSessions)
		return t.Where("1 = 1").Delete(&OwnerSession{}).Error
	})
	if err != nil {
		return fmt.Errorf("models: passphrase: %w", err)
	}
	return nil
}

// HasOwner reports whether a passphrase is set.
func (s *Store) HasOwner(ctx context.Context) (bool, error) {
	var n int64
	if err := s.rdb.WithContext(ctx).Model(&owner{}).Count(&n).Error; err != nil {
		return false, fmt.Errorf("models: owner: %w", err)
	}
	return n > 0, nil
}

// Login checks passphrase and opens a session, returning its cookie token.
func (s *Store) Login(ctx context.Context, passphrase string) (string, error) {
	var o owner
	err := s.rdb.WithContext(ctx).First(&o).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return "", ErrNoOwner
	}
	if err != nil {
		return "", fmt.Errorf("models: login: %w", err)
	}
	if bcrypt.CompareHashAndPassword([]byte(o.PasswordHash), []byte(passphrase)) != nil {
		return "", ErrUnauthorized
	}
	token := randomToken()
	now := s.clock()
	sess := OwnerSession{TokenHash: hashToken(token), CreatedAt: now, LastSeenAt: now, ExpiresAt: now.Add(SessionLifetime)}
	_, err = s.commit(ctx, func(t *txn) error {
		// Expired sessions are swept here, the only place sessions are born.
		if err := t.Where("expires_at < ?", now).Delete(&OwnerSession{}).Error; err != nil {
			return err
		}
		return t.Create(&sess).Error
	})
	if err != nil {
		return "", fmt.Errorf("models: login: %w", err)
	}
	return token, nil
}

// AuthenticateSession resolves a session cookie token: one read of the
// session row per request, so an end committed by any process is seen at
// once. A cache of verified sessions was measured and did not pay its 2x
// (BenchmarkCaches/sessions/home-steady: 1.6-2.1x, median 1.9x).
func (s *Store) AuthenticateSession(ctx context.Context, token string) (OwnerSession, error) {
	if token == "" {
		return OwnerSession{}, ErrUnauthorized
	}
	// Every owner request runs it: scanned by hand (scanRows).
	rows, err := scanRows(s.rdb.WithContext(ctx).Raw(`SELECT token_hash, created_at, last_seen_at, expires_at FROM owner_sessions
		WHERE token_hash = ? AND expires_at > ?`, hashToken(token), s.clock()),
		func(o *OwnerSession) []any { return []any{&o.TokenHash, &o.CreatedAt, &o.LastSeenAt, &o.ExpiresAt} })
	if err != nil {
		return OwnerSession{}, fmt.Errorf("models: session: %w", err)
	}
	if len(rows) == 0 {
		return OwnerSession{}, ErrUnauthorized
	}
	return rows[0], nil
}

// SessionsEnded returns a channel closed the next time this process ends
// owner sessions (logout, logout-all, a passphrase change), so open
// streams recheck theirs at once. Ends in another process are not
// signalled: a stream's periodic AuthenticateSession finds them.
func (s *Store) SessionsEnded() <-chan struct{} {
	s.sessionEndMu.Lock()
	defer s.sessionEndMu.Unlock()
	if s.sessionEnd == nil {
		s.sessionEnd = make(chan struct{})
	}
	return s.sessionEnd
}

// sessionsEnded signals SessionsEnded, once an end of sessions committed.
func (s *Store) sessionsEnded() {
	s.sessionEndMu.Lock()
	defer s.sessionEndMu.Unlock()
	if s.sessionEnd != nil {
		close(s.sessionEnd)
		s.sessionEnd = nil
	}
}

// Logout ends one session; it is refused by the time Logout returns.
func (s *Store) Logout(ctx context.Context, token string) error {
	hash := hashToken(token)
	_, err := s.commit(ctx, func(t *txn) error {
		t.touch(touchSessions)
		return t.Where("token_hash = ?", hash).Delete(&OwnerSession{}).Error
	})
	if err != nil {
		return fmt.Errorf("models: logout: %w", err)
	}
	return nil
}

// LogoutAll ends every owner session and returns how many there were.
func (s *Store) LogoutAll(ctx context.Context) (int64, error) {
	var n int64
	_, err := s.commit(ctx, func(t *txn) error {
		t.touch(touchSessions)
		res := t.Where("1 = 1").Delete(&OwnerSession{})
		n = res.RowsAffected
		return res.Error
	})
	if err != nil {
		return 0, fmt.Errorf("models: logout all: %w", err)
	}
	return n, nil
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
