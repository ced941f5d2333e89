package device

import (
	"fmt"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/opencl"
)

// A Site is one call site of the engine on the device: one step of a
// compiled graph (internal/gx), whose op launches the same kernels with
// the same buffers at every run (the memory plan fixes them). Between
// At(site) and At(nil) the launches go, in the order they are made, to
// kernel objects the site keeps for itself, one a launch (clCreateKernel at
// the site's first run). A kernel object remembers its arguments and sets
// only those that changed (opencl.Kernel), so from the second run a launch
// is one clEnqueueNDRangeKernel, and a scalar that does change from run to
// run (a dropout seed) is set again, alone. A backend method is still
// written once, as plain calls of Kernel and KernelRows: what a site keeps
// is found from the order of its launches, not written into the method. A
// launch whose kernel is not the one the site kept at that place (an op
// that launches differently from run to run) uses the shared kernel object
// instead, setting every argument. Launches outside a site (the
// optimizer's, a test's) use the shared kernel objects.
type Site struct {
	ks   []*opencl.Kernel // by the launch's place in the run
	next int
}

// NewSite returns a site of this device (backend.Sited); Release it with
// the graph.
func (*OpenCL) NewSite() backend.Site { return &Site{} }

// At makes the launches that follow go to site s, a *Site of this device,
// from its first place (nil: to the shared kernels).
func (o *OpenCL) At(s backend.Site) {
	o.site = nil
	if s != nil {
		o.site = s.(*Site)
	}
	if o.site != nil {
		o.site.next = 0
	}
}

// kernel is the site's kernel object for its next launch, of shared's
// kernel: the one it kept there, a new one at its first run, or shared.
func (s *Site) kernel(p *opencl.Program, shared *opencl.Kernel) (*opencl.Kernel, error) {
	i := s.next
	s.next++
	if i < len(s.ks) {
		if s.ks[i].Name == shared.Name {
			return s.ks[i], nil
		}
		return shared, nil
	}
	k, err := p.Kernel(shared.Name)
	if err != nil {
		return nil, fmt.Errorf("device: opencl: a launch site's kernel object: %w", err)
	}
	s.ks = append(s.ks, k)
	return k, nil
}

// Release frees the site's kernel objects.
func (s *Site) Release() error {
	var first error
	for _, k := range s.ks {
		if err := k.Release(); err != nil && first == nil {
			first = err
		}
	}
	s.ks = nil
	return first
}

var _ backend.Sited = (*OpenCL)(nil)
