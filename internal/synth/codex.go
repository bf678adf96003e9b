package synth

func newCodex(g *gen) (writer, string) { return newClaude(g) }
