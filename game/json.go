package game

// AddField returns the JSON object obj with one more field name:value at its
// end. The platform uses it to add its own fields (such as "fuel") beside a
// game's observation without decoding it. obj must end in '}'.
func AddField(obj []byte, name string, value []byte) []byte {
	n := len(obj)
	for n > 0 && (obj[n-1] == ' ' || obj[n-1] == '\n') {
		n--
	}
	if n == 0 || obj[n-1] != '}' {
		panic("game.AddField: not a JSON object")
	}
	out := make([]byte, 0, n+len(name)+len(value)+4)
	out = append(out, obj[:n-1]...)
	if n >= 2 && obj[n-2] != '{' {
		out = append(out, ',')
	}
	out = append(out, '"')
	out = append(out, name...)
	out = append(out, '"', ':')
	out = append(out, value...)
	return append(out, '}')
}
