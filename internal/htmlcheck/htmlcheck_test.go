package htmlcheck

import "testing"

func TestFragment(t *testing.T) {
	for _, c := range []struct {
		html string
		ok   bool
	}{
		{`<p>a &lt;script&gt; <a href="https://x.org/" rel="noopener nofollow">x</a> <a href="#m-1">top</a></p>`, true},
		{`<pre><code class="language-go">&lt;img onerror=x&gt;</code></pre>`, true},
		{`<img src="data:image/png;base64,AAAA" alt="">`, true},
		{`<p>x<script>alert(1)</script></p>`, false},
		{`<img src=x onerror=alert(1)>`, false},
		{`<svg><a xlink:href="javascript:alert(1)">x</a></svg>`, false},
		{`<a href=" java	script:alert(1)">x</a>`, false},
		{`<a href="JaVaScRiPt:alert(1)">x</a>`, false},
		{`<a href="data:text/html,x">x</a>`, false},
		{`<div style="background:url(x)">x</div>`, false},
		{`<iframe srcdoc="x"></iframe>`, false},
		{`<meta http-equiv="refresh" content="0;url=https://evil">`, false},
	} {
		if err := Fragment(c.html); (err == nil) != c.ok {
			t.Errorf("Fragment(%q) = %v, want ok %v", c.html, err, c.ok)
		}
	}
}

func TestPage(t *testing.T) {
	for _, c := range []struct {
		html string
		ok   bool
	}{
		{`<html><head><meta charset="utf-8"><link rel="stylesheet" href="../css/site.css"><script src="../js/site.js" defer></script></head></html>`, true},
		{`<script>alert(1)</script>`, false},
		{`<script src="https://cdn.example/x.js"></script>`, false},
		{`<script src="//cdn.example/x.js"></script>`, false},
		{`<body onload="x()">`, false},
	} {
		if err := Page(c.html); (err == nil) != c.ok {
			t.Errorf("Page(%q) = %v, want ok %v", c.html, err, c.ok)
		}
	}
}
