package ingest

import "github.com/transcriptsite/transcriptsite/transcript"

// GeminiUsage converts the Gemini API's token counts (usageMetadata), as
// Gemini CLI records them and SpecStory passes them on: the prompt count
// includes the cached content, and thoughts and tool-use prompts are
// counted apart from the prompt and the reply.
func GeminiUsage(prompt, candidates, cached, thoughts, tool int64) transcript.Usage {
	return transcript.Usage{Input: max(prompt-cached, 0) + tool, Output: candidates + thoughts, CacheRead: cached, Reasoning: thoughts}
}
