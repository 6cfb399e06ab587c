//! One `advance` of any accepted length streams its events into the bounded window and
//! takes its checkpoints as it goes: memory stays bounded by the window and the
//! checkpoints, not by the span. Measured with a counting allocator (this test binary's
//! own), so the bound is on the heap the run holds at its peak.

// A global allocator is an unsafe trait; the workspace denies unsafe code elsewhere.
#![allow(unsafe_code)]

use kraft_sim::simulation::MAX_ADVANCE_MS;
use kraft_sim::{ClusterSpec, Simulation};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        System.dealloc(p, layout);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const MB: usize = 1 << 20;

#[test]
fn a_day_long_advance_holds_only_the_window_and_the_checkpoints() {
    let mut sim = Simulation::new(ClusterSpec { voters: 3, writes_per_second: 10, ..ClusterSpec::default() }).unwrap();
    PEAK.store(LIVE.load(Ordering::Relaxed), Ordering::Relaxed);
    sim.advance(MAX_ADVANCE_MS).unwrap();
    let peak = PEAK.load(Ordering::Relaxed);
    assert_eq!(sim.now(), MAX_ADVANCE_MS);
    assert!(sim.last_seq() > 8_000_000, "{} events: the span the issue saw trap", sim.last_seq());
    // The window is 200,000 events and at most 200 checkpoints are kept (about 80 MB
    // here); buffering the day's 22 million events held 6.8 GB.
    assert!(peak < 256 * MB, "peak heap {} MB over {} events", peak / MB, sim.last_seq());
}
