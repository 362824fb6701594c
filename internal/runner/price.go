package runner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
)

// Codex's events carry tokens, never prices, so the runner prices each
// invocation itself: the tokens of its turns times the price of the model
// Codex used, per 1M tokens of each kind Codex reports. A model with no
// price records its tokens and no cost (the daily token cap still counts
// them).

// Price is one model's USD price per 1M tokens of each kind.
type Price struct {
	Input       float64 `json:"input"`       // input tokens not read from the cache
	CachedInput float64 `json:"cachedInput"` // input tokens read from the cache
	Output      float64 `json:"output"`      // output tokens that are not reasoning
	Reasoning   float64 `json:"reasoning"`   // reasoning tokens (OpenAI bills them as output)
}

// Prices maps a model name, as Codex sends it, to its price.
type Prices map[string]Price

// PricesTakenOn is when DefaultPrices were read from OpenAI's model pages
// (Standard processing, text, requests up to 272K input tokens). OpenAI
// bills a request over 272K input tokens at higher rates, and cache
// writes at their own; Codex reports neither apart, so both are priced as
// plain input here.
const PricesTakenOn = "2026-12-04"

// DefaultPrices are OpenAI's published prices of the models Codex 0.171
// offers, as of PricesTakenOn. gpt-6.2-sol is Codex 0.171's default model.
var DefaultPrices = Prices{
	"gpt-6.2-sol": {Input: 2, CachedInput: 0.10, Output: 10, Reasoning: 10},
	"gpt-6.1-sol": {Input: 2, CachedInput: 0.10, Output: 10, Reasoning: 10},
	"gpt-6-sol":   {Input: 2, CachedInput: 0.20, Output: 10, Reasoning: 10},
	"gpt-6-luna":  {Input: 0.10, CachedInput: 0.01, Output: 0.50, Reasoning: 0.50},
}

// maxPrice bounds a price per 1M tokens, so a typo cannot read as a fortune.
const maxPrice = 10000

// LoadPrices is DefaultPrices with the models of the JSON price file at
// path (`hearth run --prices FILE`: {"takenOn": "YYYY-MM-DD", "models":
// {"MODEL": {"input": N, "cachedInput": N, "output": N, "reasoning": N}}})
// put over them, model by model. The file is read strictly: an unknown field, a
// missing or negative price, or a model without a name is an error.
func LoadPrices(path string) (Prices, error) {
	out := Prices{}
	for m, p := range DefaultPrices {
		out[m] = p
	}
	if path == "" {
		return out, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f struct {
		TakenOn string                                `json:"takenOn"`
		Models  map[string]map[string]json.RawMessage `json:"models"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s: more than one JSON value", path)
	}
	if len(f.Models) == 0 {
		return nil, fmt.Errorf(`%s: no models (want {"takenOn": "YYYY-MM-DD", "models": {"MODEL": {"input": N, "cachedInput": N, "output": N, "reasoning": N}}})`, path)
	}
	for model, fields := range f.Models {
		if strings.TrimSpace(model) == "" {
			return nil, fmt.Errorf("%s: a model without a name", path)
		}
		var p Price
		for _, k := range []struct {
			name string
			to   *float64
		}{{"input", &p.Input}, {"cachedInput", &p.CachedInput}, {"output", &p.Output}, {"reasoning", &p.Reasoning}} {
			raw, ok := fields[k.name]
			if !ok {
				return nil, fmt.Errorf("%s: model %s: no %s price (each model gives input, cachedInput, output and reasoning, USD per 1M tokens)", path, model, k.name)
			}
			if err := json.Unmarshal(raw, k.to); err != nil || *k.to < 0 || *k.to > maxPrice || math.IsNaN(*k.to) {
				return nil, fmt.Errorf("%s: model %s: %s is %s; want USD per 1M tokens, 0 to %d", path, model, k.name, raw, maxPrice)
			}
			delete(fields, k.name)
		}
		for k := range fields {
			return nil, fmt.Errorf("%s: model %s: unknown field %q", path, model, k)
		}
		out[model] = p
	}
	return out, nil
}

// codexTokens are the tokens Codex reported for an invocation's turns.
// Cached input is part of input and reasoning part of output, as in
// OpenAI's usage.
type codexTokens struct {
	Input       int64 `json:"input_tokens"`
	CachedInput int64 `json:"cached_input_tokens"`
	Output      int64 `json:"output_tokens"`
	Reasoning   int64 `json:"reasoning_output_tokens"`
}

func (t codexTokens) plus(o codexTokens) codexTokens {
	return codexTokens{t.Input + o.Input, t.CachedInput + o.CachedInput, t.Output + o.Output, t.Reasoning + o.Reasoning}
}

// total is the invocation's tokens as hearth counts them: input and output.
func (t codexTokens) total() int64 { return t.Input + t.Output }

// Cost is what t cost under model's price: nil when no price is known
// for model. A part reported larger than its whole counts as the whole.
func (p Prices) Cost(model string, t codexTokens) *float64 {
	price, ok := p[model]
	if !ok || model == "" {
		return nil
	}
	in, out := max(t.Input, 0), max(t.Output, 0)
	cached, reasoning := min(max(t.CachedInput, 0), in), min(max(t.Reasoning, 0), out)
	usd := (float64(in-cached)*price.Input + float64(cached)*price.CachedInput +
		float64(out-reasoning)*price.Output + float64(reasoning)*price.Reasoning) / 1e6
	return &usd
}
