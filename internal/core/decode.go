package core

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// DecodeStrict decodes one JSON value of dst's shape, refusing unknown
// fields and trailing data.
func DecodeStrict(body []byte, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return Errorf(http.StatusBadRequest, "bad JSON body: %s", cleanJSONError(err))
	}
	if dec.More() {
		return Errorf(http.StatusBadRequest, "bad JSON body: data after the object")
	}
	return nil
}

// cleanJSONError keeps decoder messages short and free of Go type names.
func cleanJSONError(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("syntax error at byte %d", se.Offset)
	case errors.As(err, &te):
		return fmt.Sprintf("field %q has the wrong type", te.Field)
	case errors.Is(err, io.EOF):
		return "empty body"
	}
	msg := err.Error()
	if len(msg) > 120 {
		msg = msg[:120]
	}
	return strings.TrimPrefix(msg, "json: ")
}

// ParseLimit reads a page size: 1 to PageMax, default PageDefault.
func ParseLimit(s string) (int, error) {
	if s == "" {
		return PageDefault, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > PageMax {
		return 0, Errorf(http.StatusBadRequest, "limit: a number from 1 to %d", PageMax)
	}
	return n, nil
}

// ParseID reads a positive id.
func ParseID(what, s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, Errorf(http.StatusBadRequest, "%s: want a positive integer id", what)
	}
	return n, nil
}
