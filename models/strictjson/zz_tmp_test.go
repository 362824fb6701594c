package strictjson

import "testing"

func BenchmarkTmpDecode(b *testing.B) {
	body := benchBody()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var r benchResult
		if err := Decode(body, &r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTmpHash(b *testing.B) {
	body := benchBody()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Hash(body); err != nil {
			b.Fatal(err)
		}
	}
}
