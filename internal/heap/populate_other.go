//go:build !linux

package heap

import "errors"

func populate([]byte) error { return errors.ErrUnsupported }
