//go:build !linux

package main

import "errors"

func setNice(n int) error { return errors.New("per-thread nice values are Linux only") }
