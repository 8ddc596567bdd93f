package potmbot

// The runner test lives in package potmbot_test (match imports bot/spec,
// which imports this package); it builds its entries with these.
var (
	CompileEntry = compile
	ScriptEntry  = script
)
