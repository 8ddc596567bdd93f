package replay

// For the tests of package replay_test, which play real matches (package
// match imports this one).
var (
	DecodeFast = decodeFast
	DecodeJSON = decodeJSON
)
