package synth

func newGemini(g *gen) (writer, string) { return newClaude(g) }
