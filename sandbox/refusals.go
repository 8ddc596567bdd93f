package sandbox

import (
	"container/list"
	"errors"
	"strings"

	"github.com/arenabots/arena/sandbox/meter"
)

// maxRefusalMessage bounds a refusal's message. The meter quotes at most
// meter.MaxQuotedName bytes of a module's names, but wazero's validation
// errors, which a refusal carries, may quote more.
const maxRefusalMessage = 1024

// boundRefusal cuts a refusal's message to maxRefusalMessage bytes: it is
// remembered (maxRefusals of them), logged and sent back to the uploader.
func boundRefusal(err error) error {
	var me *meter.Error
	if !errors.As(err, &me) || len(me.Msg) <= maxRefusalMessage {
		return err
	}
	return &meter.Error{Msg: strings.ToValidUTF8(me.Msg[:maxRefusalMessage], "") + "... (cut)"}
}

// maxRefusals bounds the refusals a Runtime remembers. A stranger can offer
// any number of distinct bad modules; each entry is a key and a message of
// a few hundred bytes, so 4,096 take about a megabyte.
const maxRefusals = 4096

// refusalCache remembers the most recently seen refusals, by module key,
// forgetting the least recently used one past its capacity. It is not safe
// for concurrent use: the Runtime's lock guards it.
type refusalCache struct {
	max   int
	order *list.List // of *refusal, most recently used first
	byKey map[string]*list.Element
}

type refusal struct {
	key string
	err error
}

func newRefusalCache(max int) *refusalCache {
	return &refusalCache{max: max, order: list.New(), byKey: map[string]*list.Element{}}
}

// get returns the refusal of key, if remembered, and marks it used.
func (c *refusalCache) get(key string) (error, bool) {
	e, ok := c.byKey[key]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*refusal).err, true
}

// put remembers the refusal of key, forgetting the least recently used one
// when full.
func (c *refusalCache) put(key string, err error) {
	if e, ok := c.byKey[key]; ok {
		e.Value.(*refusal).err = err
		c.order.MoveToFront(e)
		return
	}
	c.byKey[key] = c.order.PushFront(&refusal{key, err})
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.byKey, last.Value.(*refusal).key)
	}
}

func (c *refusalCache) len() int { return c.order.Len() }
