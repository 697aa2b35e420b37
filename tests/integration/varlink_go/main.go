// SPDX-License-Identifier: BSD-2-Clause
// A varlink client built on the reference Go library (Debian's
// golang-github-varlink-go-dev), for test_varlink_go.py: it calls statsd
// as any varlink client would and prints one line per call, which the
// test checks. usage: client SOCKET
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/varlink/go/varlink"
)

func fail(what string, err error) {
	fmt.Printf("FAIL %s: %v\n", what, err)
	os.Exit(1)
}

type kstatName struct {
	Module   string `json:"module"`
	Instance int64  `json:"instance"`
	Name     string `json:"name"`
}

type readReply struct {
	Kstat    kstatName              `json:"kstat"`
	Snaptime int64                  `json:"snaptime"`
	Data     map[string]interface{} `json:"data"`
}

func main() {
	ctx := context.Background()
	c, err := varlink.NewConnection(ctx, "unix:"+os.Args[1])
	if err != nil {
		fail("connect", err)
	}
	defer c.Close()

	// The library sends "parameters": null for a call without any.
	var vendor, product, version, url string
	var ifaces []string
	if err := c.GetInfo(ctx, &vendor, &product, &version, &url,
		&ifaces); err != nil {
		fail("GetInfo", err)
	}
	fmt.Printf("getinfo product=%s interfaces=%s\n", product,
		strings.Join(ifaces, ","))

	desc, err := c.GetInterfaceDescription(ctx, "io.statsd")
	if err != nil {
		fail("GetInterfaceDescription", err)
	}
	fmt.Printf("description starts_interface=%v has_read=%v\n",
		strings.Contains(desc, "\ninterface io.statsd\n"),
		strings.Contains(desc, "method Read("))

	var info struct {
		Version string `json:"version"`
		Kstats  int64  `json:"kstats"`
	}
	if err := c.Call(ctx, "io.statsd.Info", nil, &info); err != nil {
		fail("Info", err)
	}
	fmt.Printf("info version=%s kstats>0=%v\n", info.Version,
		info.Kstats > 0)

	var chain struct {
		Kcid   int64       `json:"kcid"`
		Kstats []kstatName `json:"kstats"`
	}
	if err := c.Call(ctx, "io.statsd.Chain", struct{}{}, &chain); err != nil {
		fail("Chain", err)
	}
	seen := false
	for _, k := range chain.Kstats {
		seen = seen || (k.Module == "statsd" && k.Name == "daemon")
	}
	fmt.Printf("chain kstats>0=%v has_daemon=%v\n", len(chain.Kstats) > 0,
		seen)

	self := kstatName{"statsd", 0, "daemon"}
	var rd readReply
	if err := c.Call(ctx, "io.statsd.Read", self, &rd); err != nil {
		fail("Read", err)
	}
	_, uptime := rd.Data["uptime_ns"]
	fmt.Printf("read kstat=%s:%d:%s uptime_ns=%v\n", rd.Kstat.Module,
		rd.Kstat.Instance, rd.Kstat.Name, uptime)

	err = c.Call(ctx, "io.statsd.Read", kstatName{"nosuch", 0, "x"}, &rd)
	var verr *varlink.Error
	if !errors.As(err, &verr) {
		fail("Read of a missing kstat", fmt.Errorf("not a varlink "+
			"error: %v", err))
	}
	fmt.Printf("error name=%s\n", verr.Name)

	// A stream: three replies, each but the last marked "continues".
	params := map[string]interface{}{"module": "statsd", "instance": 0,
		"name": "daemon", "interval_ms": 50, "count": 3}
	recv, err := c.Send(ctx, "io.statsd.Read", params, varlink.More)
	if err != nil {
		fail("Read more", err)
	}
	n, flags := 0, uint64(varlink.Continues)
	for flags&varlink.Continues != 0 {
		var r readReply
		flags, err = recv(ctx, &r)
		if err != nil {
			fail("a streamed Read", err)
		}
		if r.Kstat.Name != "daemon" {
			fail("a streamed Read", fmt.Errorf("kstat %q",
				r.Kstat.Name))
		}
		n++
	}
	fmt.Printf("stream replies=%d\n", n)
}
