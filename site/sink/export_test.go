package sink

// What the tests of package sink_test stand in for, to see what a build
// reads and to make the file system one without links.
var (
	Settle   = &settle
	SumFile  = &sumFile
	LinkFile = &linkFile
)

// What the tests of one Dir reach inside it.
var (
	RemoveEntry = &removeEntry
	RemoveSite  = removeSite
	RecoverOld  = recoverOld
	RemoveStale = removeStale
	OldSite     = oldSite
	Settled     = settled
)

const Building = building

// FileOf is where the file rel of the new site o builds is.
func FileOf(o *Dir, rel string) (string, error) { return o.file(rel) }
