package main

type newCmd struct {
	Lang string `required:"" enum:"go,c,rust" help:"The kit's language: go, c or rust."`
	Game string `required:"" help:"Game id (see 'arena games')."`
	Dir  string `arg:"" help:"The folder to write (new, or empty)."`
}

func (c *newCmd) Run() error { return nil }
