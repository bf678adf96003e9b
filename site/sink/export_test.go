package sink

// What the tests of package sink_test stand in for, to see what a build
// reads and to make the file system one without links.
var (
	Settle   = &settle
	SumFile  = &sumFile
	LinkFile = &linkFile
)
