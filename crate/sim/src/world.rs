//! The world: nodes, their disks, the network and the client, advanced by a
//! discrete-event queue ordered by (time, seq). It owns every random stream.
//!
//! # The ordering rule
//!
//! An action at millisecond `t` takes effect after every event due at or before `t`
//! (and everything those events schedule for `t`), and everything the action itself
//! causes at `t` runs before the next action or before the caller looks. Actions at the
//! same millisecond apply in the order they were taken, each after the previous one's
//! consequences at `t`. So `resign(); write()` in one millisecond writes after the
//! leader has resigned (Kafka's raft thread is woken by `resign` and resigns on its next
//! poll, `KafkaRaftClient.pollLeader`), and two writes with `append.linger.ms: 0` are
//! two batches, as when Kafka's raft thread drains each write before the next arrives.
//!
//! [`World::run_step`] is the only place this rule is applied. Live play (`advance`,
//! `step`, `act`), replay (links, scenarios, sweeps), `seek` and event regeneration all
//! run through it, so a run and its replay are the same run by construction: an action
//! is an input applied at its time, never a side door.
//!
//! # Zero-time loops
//!
//! Every message takes at least [`crate::limits::LATENCY_MS`], so replicas cannot
//! answer each other forever inside one millisecond. As defence in depth against any
//! other zero-time loop, a millisecond that runs more than [`MAX_EVENTS_PER_MS`] queued
//! events stops the run with a [`Livelock`] instead of spinning until memory runs out.

use super::network::Network;
use super::queue::EventQueue;
use super::spec::{Action, QuorumKind, ResolvedSpec, TimedAction};
pub use super::vocab::WriteOutcome;
use super::wire::{InFlight, Wire};
use crate::check::{Checker, ClusterView};
use crate::trace::{DropReason, Event, EventKind, Fault, SnapshotAction};
use kraft_base::rng::Rng;
use kraft_base::shared::Meter;
use kraft_boundary::record::RECORD_BYTES;
use kraft_boundary::{
    ClientRecord, Ctx, DurableState, Envelope, Epoch, IdSource, LogView, NodeId, Note, Offset, Output, Protocol,
    ReplicaCore, RpcName, Setup, Start, StateName, VoterChangeRequest, Wake, WireMessage, ADMIN_CLIENT,
};
use kraft_protocol::{KRaft, RecordBody};
use std::collections::VecDeque;
use std::sync::Arc;

/// Random stream ids: one per purpose, so adding draws in one place never shifts another.
const STREAM_NETWORK: u64 = 1;
const STREAM_WORKLOAD: u64 = 2;
const STREAM_DIRECTORY: u64 = 3;
const STREAM_NODE: u64 = 100;

/// The workload's topics are `topic-0` .. `topic-49`.
const WORKLOAD_TOPICS: u64 = 50;

#[derive(Clone, Debug)]
enum Pending<P: Protocol> {
    Deliver {
        msg: u64,
    },
    DropInFlight {
        msg: u64,
    },
    Wake {
        node: NodeId,
        gen: u64,
    },
    /// Boxed: rare (only a dead peer), and inline it would make every queued event 8
    /// bytes larger.
    Disconnect(Box<Disconnect<P>>),
    FlushDone {
        node: NodeId,
        incarnation: u32,
        up_to: Offset,
    },
    Workload {
        gen: u64,
    },
}

/// `node`'s connection to `peer` failed under request `correlation`; `incarnation` is the
/// sender's, so a restarted sender never matches an old request.
#[derive(Clone, Debug)]
struct Disconnect<P: Protocol> {
    node: NodeId,
    incarnation: u32,
    peer: NodeId,
    correlation: u64,
    rpc: P::Rpc,
    sent: u64,
}

#[derive(Clone, Debug)]
enum Inbound<P: Protocol> {
    Message(Envelope<P::Message>, u64, u64, bool),
    Disconnect { peer: NodeId, correlation: u64, rpc: P::Rpc, sent: u64 },
    Poll,
}

/// A voter change the admin client sent: the correlation id its answer will carry.
#[derive(Clone, Debug)]
struct AdminRequest {
    correlation: u64,
    request: &'static str,
    voter: NodeId,
}

/// One simulated machine: a replica process (absent while crashed) and its disk.
#[derive(Clone, Debug)]
pub struct Node<P: Protocol = KRaft> {
    pub id: NodeId,
    /// In the configured quorum (controller.quorum.voters, or the initial controllers of a
    /// dynamic quorum). A running replica's own voter set is what counts
    /// (`ReplicaCore::voters`); this is what a crashed node shows.
    pub is_voter: bool,
    pub replica: Option<P::Replica>,
    /// What survived the last crash (only while crashed).
    pub durable: Option<P::Durable>,
    incarnation: u32,
    /// The replica thread is blocked in a flush until then.
    pub busy_until: u64,
    inbox: VecDeque<Inbound<P>>,
    deferred: Vec<Output<P>>,
    pub flush_ms: u64,
    /// When the replica next needs `poll`, as it answered its last input.
    deadline: Option<u64>,
    wake_at: Option<u64>,
    wake_gen: u64,
    rng: Rng,
}

impl<P: Protocol> Node<P> {
    /// A machine not started yet, with its formatted disk.
    fn new(id: NodeId, is_voter: bool, disk: P::Durable, spec: &ResolvedSpec<P>) -> Node<P> {
        Node {
            id,
            is_voter,
            replica: None,
            durable: Some(disk),
            incarnation: 0,
            busy_until: 0,
            inbox: VecDeque::new(),
            deferred: Vec::new(),
            flush_ms: spec.flush_ms,
            deadline: None,
            wake_at: None,
            wake_gen: 0,
            rng: Rng::fork(spec.seed, STREAM_NODE + id as u64),
        }
    }
    /// Its replica's thread is blocked in a flush: from the flush's start until the world
    /// has reported its end (`FlushDone`), including the millisecond it ends in, so an
    /// input queued for that millisecond before the flush began waits for its end too.
    fn in_flush(&self) -> bool {
        self.busy_until != 0
    }
    /// The directory id of its disk (meta.properties' `directory.id`), if its protocol
    /// formats one: what `add-controller` reads from the node.
    pub fn directory(&self) -> Option<u64> {
        self.log().and_then(LogView::directory)
    }
    /// The running replica's log, or what is on disk while crashed.
    pub fn log(&self) -> Option<&P::Log> {
        match (&self.replica, &self.durable) {
            (Some(r), _) => Some(r.log()),
            (None, Some(d)) => Some(d.log()),
            _ => None,
        }
    }
}

/// What one [`World::run_step`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunStep {
    /// Ran the events of one millisecond.
    Ran,
    /// Applied the next input (with its write outcome, for writes).
    Applied(Option<WriteOutcome>),
    /// Nothing more was due: the clock is at `stop`.
    Reached,
}

/// Most queued events one simulated millisecond may run. The busiest millisecond seen
/// (15 nodes at 1,000 writes/s, linger 0, a partition healing) runs about 900; chaos
/// sweeps stay under 50. More than this many means a zero-time loop, which would
/// otherwise spin until memory runs out.
pub const MAX_EVENTS_PER_MS: u64 = 100_000;

/// A run stopped at millisecond `t`: it ran more than [`MAX_EVENTS_PER_MS`] events
/// without simulated time moving on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Livelock {
    pub t: u64,
}

impl std::fmt::Display for Livelock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "livelock at t = {} ms: more than {MAX_EVENTS_PER_MS} events ran within that one millisecond \
             (a zero-time loop), so the run was stopped",
            self.t
        )
    }
}

/// A directory id: 48 bits, never 0 (Kafka's Uuid.ZERO_UUID means "none"), so it stays
/// exact as a JavaScript number.
fn draw_directory(rng: &mut Rng) -> u64 {
    (rng.next_u64() >> 16).max(1)
}

/// The world running replicas of protocol `P` (KRaft, the playground's, unless named).
#[derive(Clone, Debug)]
pub struct World<P: Protocol = KRaft> {
    pub spec: ResolvedSpec<P>,
    pub now: u64,
    pub nodes: Vec<Node<P>>,
    /// The configured quorum (controller.quorum.voters), which replicas start with.
    pub voters: Vec<NodeId>,
    pub network: Network,
    pub in_flight: Wire<P::Message>,
    queue: EventQueue<Pending<P>>,
    /// Queued events run so far at `now` (the livelock detector's count).
    moment_events: u64,
    event_seq: u64,
    next_msg: u64,
    ids: IdSource,
    workload_rng: Rng,
    pub writes_per_second: u32,
    workload_gen: u64,
    /// The workload's topic names, made once (a write shares one instead of formatting it).
    topic_names: Arc<[Arc<str>]>,
    /// Draws the directory id of every disk formatted (a stream of its own: formatting
    /// never shifts the network's or a node's draws).
    directory_rng: Rng,
    /// The admin client's voter changes the leader has not answered yet.
    admin_pending: Vec<AdminRequest>,
    admin_correlation: u64,
    pub checker: Checker,
    /// Counts the bytes the logs, images and checker hold, shared by every clone.
    meter: Meter,
    /// Events not yet collected by the owner (`Simulation`).
    pub(crate) events: Vec<Event<P>>,
    /// An empty buffer for a replica step's outputs, kept for its capacity.
    outputs: Vec<Output<P>>,
}

struct NodesView<'a, P: Protocol> {
    nodes: &'a [Node<P>],
}

impl<P: Protocol> ClusterView<P> for NodesView<'_, P> {
    fn node_count(&self) -> usize {
        self.nodes.len()
    }
    fn replica(&self, id: NodeId) -> Option<&P::Replica> {
        self.nodes[id as usize].replica.as_ref()
    }
    fn log(&self, id: NodeId) -> Option<&P::Log> {
        self.nodes[id as usize].log()
    }
}

impl<P: Protocol> World<P> {
    pub fn new(spec: ResolvedSpec<P>) -> World<P> {
        let n = spec.node_count();
        let meter = Meter::new();
        let voters: Vec<NodeId> = (0..spec.voters).collect();
        let mut directory_rng = Rng::fork(spec.seed, STREAM_DIRECTORY);
        let directories: Vec<u64> = (0..n).map(|_| draw_directory(&mut directory_rng)).collect();
        // kafka-storage.sh format: a dynamic quorum's first voters with
        // --initial-controllers naming them all, every other disk without voters.
        let initial: Vec<(NodeId, u64)> = voters.iter().map(|&v| (v, directories[v as usize])).collect();
        let format = |id: NodeId| {
            let dynamic = spec.quorum == QuorumKind::Dynamic && id < spec.voters;
            P::Durable::format(&meter, &spec.protocol, directories[id as usize], dynamic.then_some(&initial[..]))
        };
        let nodes = (0..n).map(|id| Node::new(id, id < spec.voters, format(id), &spec)).collect();
        let mut w = World {
            network: Network::new(n as usize, spec.network, Rng::fork(spec.seed, STREAM_NETWORK)),
            workload_rng: Rng::fork(spec.seed, STREAM_WORKLOAD),
            checker: Checker::new(n as usize, spec.stable_leadership).metered(&meter),
            meter,
            writes_per_second: 0,
            workload_gen: 0,
            topic_names: (0..WORKLOAD_TOPICS).map(|n| Arc::from(format!("topic-{n}"))).collect(),
            directory_rng,
            admin_pending: Vec::new(),
            admin_correlation: 0,
            spec,
            now: 0,
            nodes,
            voters,
            in_flight: Wire::default(),
            queue: EventQueue::default(),
            moment_events: 0,
            event_seq: 0,
            next_msg: 0,
            ids: IdSource::default(),
            events: Vec::new(),
            outputs: Vec::new(),
        };
        for id in 0..n {
            w.start_node(id, Start::Startup);
        }
        let wps = w.spec.writes_per_second;
        if wps > 0 {
            w.set_workload(wps);
        }
        w
    }

    // ---- time ----------------------------------------------------------------------

    fn schedule(&mut self, t: u64, what: Pending<P>) {
        self.queue.push(t, what);
    }

    /// The time of the next queued event, if any.
    pub fn next_event_time(&self) -> Option<u64> {
        self.queue.next_time()
    }

    /// One step of the run loop toward `stop`, by the ordering rule (module doc): the
    /// events of the next millisecond that has any due, or the next input
    /// (`inputs[*applied]`) once nothing is due before or at its time, or, when neither
    /// comes by `stop`, the clock moved to `stop`. New events are left in `self.events`
    /// for the owner to collect after each step, so a long run never buffers its span.
    pub fn run_step(&mut self, inputs: &[TimedAction], applied: &mut usize, stop: u64) -> Result<RunStep, Livelock> {
        let input_at = inputs.get(*applied).map(|i| i.t).filter(|t| *t <= stop);
        match (self.next_event_time().filter(|t| *t <= stop), input_at) {
            (Some(due), input) if input.map(|t| due <= t).unwrap_or(true) => {
                self.run_moment(due)?;
                Ok(RunStep::Ran)
            }
            (_, Some(t)) => {
                let input = &inputs[*applied];
                *applied += 1;
                self.set_clock(t);
                // What it causes at `t` is then due at `t`, so the next steps run it
                // before a later input at `t` and before the run reaches `stop`.
                Ok(RunStep::Applied(self.apply(&input.action)))
            }
            _ => {
                self.set_clock(stop);
                Ok(RunStep::Reached)
            }
        }
    }

    /// Runs every queued event due at `t` (the clock moves to `t`), including those
    /// they schedule for `t`.
    fn run_moment(&mut self, t: u64) -> Result<(), Livelock> {
        self.set_clock(t);
        while let Some(what) = self.queue.pop_due(t) {
            self.moment_events += 1;
            if self.moment_events > MAX_EVENTS_PER_MS {
                return Err(Livelock { t });
            }
            self.dispatch(what);
        }
        Ok(())
    }

    fn set_clock(&mut self, t: u64) {
        if t > self.now {
            self.now = t;
            self.moment_events = 0;
        }
    }

    fn dispatch(&mut self, what: Pending<P>) {
        match what {
            Pending::Deliver { msg } => self.deliver(msg),
            Pending::DropInFlight { msg } => {
                if let Some(m) = self.in_flight.remove(msg) {
                    self.emit_drop(&m, DropReason::Loss);
                }
            }
            Pending::Disconnect(d) => {
                let Disconnect { node, incarnation, peer, correlation, rpc, sent } = *d;
                self.disconnect_arrives(node, incarnation, Inbound::Disconnect { peer, correlation, rpc, sent })
            }
            Pending::Wake { node, gen } => {
                let n = &mut self.nodes[node as usize];
                if n.wake_gen != gen || n.replica.is_none() {
                    return;
                }
                n.wake_at = None;
                if n.in_flush() {
                    // Blocked in a flush: only the replica's work off its blocked thread runs
                    // (KRaft's parked-fetch expiry); its answer is when that is next due,
                    // not the replica's deadline.
                    self.run_replica(node, |r, ctx| {
                        let _next_due = r.poll_during_flush(ctx);
                        None
                    });
                    let n = &mut self.nodes[node as usize];
                    if !n.inbox.iter().any(|i| matches!(i, Inbound::Poll)) {
                        n.inbox.push_back(Inbound::Poll);
                    }
                } else {
                    self.run_replica(node, |r, ctx| Some(r.poll(ctx)));
                }
            }
            Pending::FlushDone { node, incarnation, up_to } => {
                let n = &mut self.nodes[node as usize];
                if n.incarnation != incarnation || n.replica.is_none() {
                    return;
                }
                n.busy_until = 0;
                n.deadline = n.replica.as_mut().expect("running").flushed(self.now, up_to).0;
                self.emit(EventKind::Flush { node, offset: up_to });
                let mut deferred = std::mem::take(&mut self.nodes[node as usize].deferred);
                self.process_outputs(node, &mut deferred);
                self.drain_inbox(node);
                self.reschedule_wake(node);
            }
            Pending::Workload { gen } => {
                if gen != self.workload_gen || self.writes_per_second == 0 {
                    return;
                }
                let record = self.random_record();
                self.client_write(Some(record));
                let interval = (1000 / self.writes_per_second as u64).max(1);
                self.schedule(self.now + interval, Pending::Workload { gen });
            }
        }
    }

    // ---- replicas ------------------------------------------------------------------

    fn start_node(&mut self, id: NodeId, start: Start) {
        let durable = self.nodes[id as usize].durable.take().expect("a stopped node has its disk");
        let bootstrap_only = self.spec.quorum == QuorumKind::Dynamic;
        let setup = Setup { id, voters: &self.voters, bootstrap_only, config: &self.spec.protocol };
        let mut out = Vec::new();
        let now = self.now;
        let n = &mut self.nodes[id as usize];
        let (replica, wake) = {
            let mut ctx = Ctx { now, rng: &mut n.rng, ids: &mut self.ids, out: &mut out };
            P::Replica::start(&mut ctx, setup, durable, start)
        };
        n.replica = Some(replica);
        n.deadline = wake.0;
        self.process_outputs(id, &mut out);
        self.reschedule_wake(id);
    }

    /// Runs one input through a replica and routes what comes out. `f` returns the
    /// replica's answer, its next deadline ([`Wake`]); `None` for the one input that
    /// answers with something else (`poll_during_flush`, while blocked in a flush).
    fn run_replica(&mut self, id: NodeId, f: impl FnOnce(&mut P::Replica, &mut Ctx<P>) -> Option<Wake>) {
        let now = self.now;
        let n = &mut self.nodes[id as usize];
        let Some(replica) = n.replica.as_mut() else {
            return;
        };
        let mut out = std::mem::take(&mut self.outputs);
        let mut ctx = Ctx { now, rng: &mut n.rng, ids: &mut self.ids, out: &mut out };
        if let Some(Wake(deadline)) = f(replica, &mut ctx) {
            n.deadline = deadline;
        }
        self.process_outputs(id, &mut out);
        self.outputs = out;
        self.reschedule_wake(id);
    }

    /// Routes `outputs` (left empty, its capacity kept).
    fn process_outputs(&mut self, id: NodeId, outputs: &mut Vec<Output<P>>) {
        let mut rest = outputs.drain(..);
        while let Some(o) = rest.next() {
            match o {
                Output::Send(env) if env.to == ADMIN_CLIENT => self.admin_answered(id, env.correlation, &env.message),
                Output::Send(env) => self.send(env),
                Output::Note(note) => self.emit_note(id, note),
                Output::Flush { up_to } => {
                    let n = &mut self.nodes[id as usize];
                    if n.flush_ms == 0 {
                        n.deadline = n.replica.as_mut().expect("running").flushed(self.now, up_to).0;
                        self.emit(EventKind::Flush { node: id, offset: up_to });
                        continue;
                    }
                    // The replica's thread blocks in fsync: what it did after the flush
                    // (e.g. the follower's next Fetch) happens when the flush is done.
                    n.busy_until = self.now + n.flush_ms;
                    n.deferred.extend(rest);
                    let (t, incarnation) = (n.busy_until, n.incarnation);
                    self.schedule(t, Pending::FlushDone { node: id, incarnation, up_to });
                    return;
                }
            }
        }
        let n = &mut self.nodes[id as usize];
        if let (Some(r), true) = (n.replica.as_mut(), n.deferred.is_empty()) {
            // Every event of the step has been checked.
            r.forget_compacted();
        }
    }

    fn drain_inbox(&mut self, id: NodeId) {
        loop {
            let n = &mut self.nodes[id as usize];
            if n.replica.is_none() || n.in_flush() {
                return;
            }
            let Some(input) = n.inbox.pop_front() else {
                return;
            };
            match input {
                Inbound::Message(env, msg, sent, duplicate) => self.handle_message(env, msg, sent, duplicate),
                Inbound::Disconnect { peer, correlation, rpc, sent } => {
                    self.handle_disconnect(id, peer, correlation, rpc, sent)
                }
                Inbound::Poll => self.run_replica(id, |r, ctx| Some(r.poll(ctx))),
            }
        }
    }

    fn reschedule_wake(&mut self, id: NodeId) {
        let now = self.now;
        let n = &mut self.nodes[id as usize];
        let Some(r) = n.replica.as_ref() else { return };
        let queued = n.wake_at.filter(|w| *w >= now);
        // While blocked in a flush only the work off the replica's blocked thread can run
        // (KRaft's parked-fetch expiry); every other timer is read again from the
        // replica's answer to the flush's end.
        let deadline = if n.in_flush() {
            r.deadline_during_flush()
        } else {
            // The answer to the last input is the replica's deadline now: every input
            // that changes a replica answers with it.
            #[cfg(test)]
            assert_eq!(n.deadline, r.next_deadline(now), "node {id}'s last answer is stale");
            n.deadline
        };
        let Some(d) = deadline else { return };
        let d = d.max(now);
        if queued.is_some_and(|w| w <= d) {
            return; // an earlier or equal wake-up is already queued
        }
        n.wake_gen += 1;
        n.wake_at = Some(d);
        let gen = n.wake_gen;
        // The node's queued wake-up has an older generation now: the queue may drop it.
        self.queue.push_superseding(id as usize, d, Pending::Wake { node: id, gen });
    }

    // ---- network -------------------------------------------------------------------

    fn send(&mut self, env: Envelope<P::Message>) {
        let (from, to) = (env.from, env.to);
        let (plan, dup) = self.network.plan(self.now, from, to);
        // The envelope moves onto the wire; only a duplicate costs a clone (the original
        // takes the lower id).
        match dup {
            None => self.put_on_wire(env, plan, false),
            Some(d) => {
                self.put_on_wire(env.clone(), plan, false);
                self.put_on_wire(env, d, true);
            }
        }
    }

    /// One copy of a sent message: traced, then on the wire to be delivered or lost, or
    /// dropped at once when its link is down.
    fn put_on_wire(&mut self, envelope: Envelope<P::Message>, p: super::network::Plan, duplicate: bool) {
        let now = self.now;
        let (from, to) = (envelope.from, envelope.to);
        self.next_msg += 1;
        let id = self.next_msg;
        let dropped = if !self.network.link_up(from, to) {
            Some(DropReason::Partition)
        } else if p.lost {
            Some(DropReason::Loss)
        } else {
            None
        };
        let m = &envelope.message;
        self.emit(EventKind::Send {
            msg: id,
            from,
            to,
            rpc: m.kind(),
            epoch: m.epoch(),
            summary: m.summary(),
            arrives: p.arrives,
            dropped,
        });
        let m = InFlight { id, envelope, sent: now, arrives: p.arrives, duplicate };
        match dropped {
            Some(DropReason::Partition) => self.emit_drop(&m, DropReason::Partition),
            Some(_) => {
                // Lost somewhere on the way: it dies halfway.
                let die = now + (p.arrives - now) / 2;
                self.in_flight.insert(m);
                self.schedule(die, Pending::DropInFlight { msg: id });
            }
            None => {
                self.in_flight.insert(m);
                self.schedule(p.arrives, Pending::Deliver { msg: id });
            }
        }
    }

    fn emit_drop(&mut self, m: &InFlight<P::Message>, reason: DropReason) {
        self.emit_lost(&m.envelope, m.id, m.sent, reason);
    }

    /// A message that never reaches its handler: off the wire, or out of a dead inbox.
    fn emit_lost(&mut self, env: &Envelope<P::Message>, msg: u64, sent: u64, reason: DropReason) {
        let (from, to, rpc, epoch) = (env.from, env.to, env.message.kind(), env.message.epoch());
        self.emit(EventKind::Drop { msg, from, to, rpc, epoch, sent, reason });
    }

    fn deliver(&mut self, msg: u64) {
        let Some(m) = self.in_flight.remove(msg) else {
            return;
        };
        let (from, to) = (m.envelope.from, m.envelope.to);
        if !self.network.link_up(from, to) {
            return self.emit_drop(&m, DropReason::Partition);
        }
        let n = &mut self.nodes[to as usize];
        if n.replica.is_none() {
            self.emit_drop(&m, DropReason::NodeDown);
            // Nothing listens on the dead node's port: the connection is refused.
            // (A duplicate is a network artefact; its original already failed.)
            if m.envelope.message.kind().is_request() && !m.duplicate {
                self.schedule_disconnect(from, to, m.envelope.correlation, m.envelope.message.kind());
            }
            return;
        }
        if n.in_flush() || !n.inbox.is_empty() {
            n.inbox.push_back(Inbound::Message(m.envelope, m.id, m.sent, m.duplicate));
            return;
        }
        self.handle_message(m.envelope, m.id, m.sent, m.duplicate);
    }

    /// The failure of `node`'s request to `peer` travels back (a RST, or the FIN of a dead
    /// process), unless the link back is down: then the sender hears nothing and waits
    /// for request.timeout.ms, as with a partitioned peer.
    fn schedule_disconnect(&mut self, node: NodeId, peer: NodeId, correlation: u64, rpc: P::Rpc) {
        if !self.network.link_up(peer, node) {
            return;
        }
        let at = self.now + self.network.reset_latency(peer, node);
        let incarnation = self.nodes[node as usize].incarnation;
        let d = Disconnect { node, incarnation, peer, correlation, rpc, sent: self.now };
        self.schedule(at, Pending::Disconnect(Box::new(d)));
    }

    fn disconnect_arrives(&mut self, node: NodeId, incarnation: u32, inbound: Inbound<P>) {
        let n = &mut self.nodes[node as usize];
        if n.replica.is_none() || n.incarnation != incarnation {
            return;
        }
        if n.in_flush() || !n.inbox.is_empty() {
            n.inbox.push_back(inbound);
            return;
        }
        if let Inbound::Disconnect { peer, correlation, rpc, sent } = inbound {
            self.handle_disconnect(node, peer, correlation, rpc, sent);
        }
    }

    /// Traced only when the request still waits (its answer may have come first).
    fn handle_disconnect(&mut self, node: NodeId, peer: NodeId, correlation: u64, rpc: P::Rpc, sent: u64) {
        let waiting = self.nodes[node as usize].replica.as_ref().and_then(|r| r.awaiting(peer));
        if waiting.map(|(c, _)| c) != Some(correlation) {
            return;
        }
        self.emit(EventKind::Disconnect { node, peer, rpc, sent });
        self.run_replica(node, |r, ctx| Some(r.disconnected(ctx, peer, correlation)));
    }

    fn handle_message(&mut self, env: Envelope<P::Message>, msg: u64, sent: u64, duplicate: bool) {
        self.emit(EventKind::Deliver {
            msg,
            from: env.from,
            to: env.to,
            rpc: env.message.kind(),
            epoch: env.message.epoch(),
            summary: env.message.summary(),
            sent,
            duplicate,
        });
        let to = env.to;
        self.run_replica(to, |r, ctx| Some(r.handle(ctx, env)));
    }

    // ---- trace -----------------------------------------------------------------------

    pub(crate) fn emit(&mut self, kind: EventKind<P>) {
        self.event_seq += 1;
        // Written straight into the window (the owner's buffer), then checked there.
        self.events.push(Event { seq: self.event_seq, t: self.now, kind });
        let event = self.events.last().expect("just pushed");
        let view = NodesView { nodes: &self.nodes };
        let violations = self.checker.observe(&view, event);
        if violations.is_empty() {
            return;
        }
        for v in violations {
            self.event_seq += 1;
            self.events.push(Event { seq: self.event_seq, t: self.now, kind: v });
        }
    }

    fn emit_note(&mut self, node: NodeId, note: Note<P>) {
        let kind = match note {
            Note::StateChanged { from, to, epoch, leader, voted, reason } => {
                EventKind::State { node, from, to, epoch, leader, voted, reason }
            }
            Note::Persisted { election } => {
                EventKind::Persist { node, epoch: election.epoch, leader: election.leader, voted: election.voted }
            }
            Note::VoteDecided { candidate, epoch, pre_vote, decision } => {
                EventKind::Vote { node, candidate, epoch, pre_vote, decision }
            }
            Note::Appended { first, last, epoch, kind } => EventKind::Append { node, first, last, epoch, kind },
            Note::HighWatermark { old, new, majority } => {
                // The set bits, lowest first, into a vector of exactly their number (at a
                // follower none: no allocation).
                let mut ids = Vec::with_capacity(majority.count_ones() as usize);
                let mut rest = majority;
                while rest != 0 {
                    ids.push(rest.trailing_zeros());
                    rest &= rest - 1;
                }
                let majority = ids.into_boxed_slice();
                EventKind::HighWatermark { node, old, new, majority }
            }
            Note::Truncated { from_leo, to, diverging_epoch, hw } => {
                EventKind::Truncate { node, from_leo, to, diverging_epoch, hw }
            }
            Note::SnapshotTaken { id } => EventKind::Snapshot { node, action: SnapshotAction::Taken, id },
            Note::SnapshotFetched { id } => EventKind::Snapshot { node, action: SnapshotAction::Fetched, id },
            Note::SnapshotLoaded { id } => EventKind::Snapshot { node, action: SnapshotAction::Loaded, id },
            Note::SnapshotDeleted { id } => EventKind::Snapshot { node, action: SnapshotAction::Deleted, id },
        };
        self.emit(kind);
    }

    // ---- user actions ----------------------------------------------------------------

    /// The running leader with the highest epoch, if any.
    pub fn leader(&self) -> Option<(NodeId, Epoch)> {
        self.nodes
            .iter()
            .filter_map(|n| n.replica.as_ref())
            .filter(|r| r.state_name().is_leader())
            .map(|r| (r.id(), r.epoch()))
            .max_by_key(|(id, e)| (*e, std::cmp::Reverse(*id)))
    }

    /// Applies a validated action now. A fault is recorded after its effect (a resignation
    /// before: what the leader does next follows it).
    pub fn apply(&mut self, action: &Action) -> Option<WriteOutcome> {
        match action {
            Action::Crash { node } => self.crash(*node),
            Action::Restart { node } => self.restart(*node),
            Action::Wipe { node } => {
                self.crash(*node);
                // Formatted again (--no-initial-controllers in a dynamic quorum): a new
                // directory id, so the node is a new replica until it is added again.
                let directory = draw_directory(&mut self.directory_rng);
                let disk = P::Durable::format(&self.meter, &self.spec.protocol, directory, None);
                self.nodes[*node as usize].durable = Some(disk);
            }
            Action::AddController => {
                self.add_controller();
                return None;
            }
            Action::AddVoter { node } => {
                // 0 is no directory id: a disk formatted without one (the leader refuses).
                let directory = self.nodes[*node as usize].directory().unwrap_or(0);
                self.change_voters(action, VoterChangeRequest::Add { id: *node, directory });
                return None;
            }
            Action::RemoveVoter { node } => {
                // remove-controller names the key as `describe --status` shows it: the
                // directory id the leader's voter set has for the node (its disk's, if none).
                let leader = self.leader().and_then(|(l, _)| self.nodes[l as usize].replica.as_ref());
                let directory = leader
                    .and_then(|r| r.voter_directory(*node))
                    .or(self.nodes[*node as usize].directory())
                    .unwrap_or(0);
                self.change_voters(action, VoterChangeRequest::Remove { id: *node, directory });
                return None;
            }
            Action::Isolate { node } => self.network.isolate(*node),
            Action::Reconnect { node } => self.network.reconnect(*node),
            Action::HealPartition => self.network.heal_partition(),
            Action::ClearSlowLink { from, to } => self.network.clear_slow_link(*from, *to),
            Action::Partition { groups } => self.network.partition(groups),
            Action::Cut { from, to } => self.network.cut(*from, *to),
            Action::Uncut { from, to } => self.network.uncut(*from, *to),
            Action::SlowLink { from, to, latency_ms } => {
                self.network.slow_link(*from, *to, latency_ms[0], latency_ms[1])
            }
            Action::Heal => self.network.heal(),
            Action::Network { latency_ms, loss, duplicate } => {
                let p = &mut self.network.profile;
                p.latency_min_ms = latency_ms[0];
                p.latency_max_ms = latency_ms[1];
                p.loss_ppm = crate::limits::rate_ppm(&crate::limits::LOSS, *loss).unwrap_or(0);
                p.duplicate_ppm = crate::limits::rate_ppm(&crate::limits::DUPLICATE, *duplicate).unwrap_or(0);
            }
            Action::SlowDisk { node, flush_ms } => self.nodes[*node as usize].flush_ms = *flush_ms,
            Action::Resign => {
                if let Some((id, _)) = self.leader() {
                    self.emit(EventKind::Fault(Box::new(Fault { leader: Some(id), ..Fault::new(Action::Resign) })));
                    // A refusal (not a leader) changes nothing: the fault event stands.
                    self.run_replica(id, |r, ctx| Some(r.resign(ctx.now).1));
                }
                return None;
            }
            Action::Workload { writes_per_second } => self.set_workload(*writes_per_second),
            Action::Write { record: None } => return Some(self.client_write(None)),
            Action::Write { record: Some(RecordBody::Client(record)) } => {
                return Some(self.client_write(Some(record.clone())))
            }
            // Validation refuses them (`RecordBody::validate`): a control record is a
            // protocol's own, never a client's.
            Action::Write { record: Some(control) } => {
                return Some(WriteOutcome::Rejected { reason: control.validate().err().unwrap_or_default() })
            }
        }
        if action.kind().is_fault() {
            self.emit(EventKind::Fault(Box::new(Fault::new(action.clone()))));
        }
        None
    }

    /// A new machine joins: the next node id, its disk formatted with `kafka-storage.sh
    /// format --no-initial-controllers` (StorageTool.formatCommand, Kafka 3.9+: a new
    /// directory id and no bootstrap checkpoint), its controller started with the
    /// bootstrap servers. Its links are up as a new node's are: in no partition group it
    /// was named in, so with the unnamed nodes while partitioned.
    fn add_controller(&mut self) {
        let id = self.nodes.len() as NodeId;
        let directory = draw_directory(&mut self.directory_rng);
        let disk = P::Durable::format(&self.meter, &self.spec.protocol, directory, None);
        self.nodes.push(Node::new(id, false, disk, &self.spec));
        self.network.add_node();
        self.checker.add_node();
        self.emit(EventKind::Fault(Box::new(Fault { added: Some(id), ..Fault::new(Action::AddController) })));
        self.start_node(id, Start::Startup);
    }

    /// Sends the admin client's voter change to the leader (recorded as a fault naming
    /// it), or answers it at once when there is none.
    fn change_voters(&mut self, action: &Action, request: VoterChangeRequest) {
        let (name, voter) = match request {
            VoterChangeRequest::Add { id, .. } => ("add-controller", id),
            VoterChangeRequest::Remove { id, .. } => ("remove-controller", id),
        };
        let leader = self.leader().map(|(l, _)| l);
        self.emit(EventKind::Fault(Box::new(Fault { leader, ..Fault::new(action.clone()) })));
        let Some(leader) = leader else {
            let (error, rule) = ("NOT_LEADER_OR_FOLLOWER", "no node is leader to send it to");
            self.emit(EventKind::Admin { node: None, request: name, voter, error, rule });
            return;
        };
        self.admin_correlation += 1;
        let correlation = self.admin_correlation;
        self.admin_pending.push(AdminRequest { correlation, request: name, voter });
        self.run_replica(leader, |r, ctx| Some(r.change_voters(ctx, correlation, request)));
    }

    /// A replica's answer to the admin client: traced with the request it answers.
    fn admin_answered(&mut self, node: NodeId, correlation: u64, message: &P::Message) {
        let Some((error, rule)) = message.voter_change_answer() else {
            return;
        };
        let Some(i) = self.admin_pending.iter().position(|a| a.correlation == correlation) else {
            return;
        };
        let AdminRequest { request, voter, .. } = self.admin_pending.remove(i);
        self.emit(EventKind::Admin { node: Some(node), request, voter, error, rule });
    }

    fn crash(&mut self, id: NodeId) {
        let n = &mut self.nodes[id as usize];
        let Some(replica) = n.replica.take() else {
            return;
        };
        let lost = replica.log().end_offset() - replica.log().flushed_offset();
        n.durable = Some(replica.durable());
        n.incarnation += 1;
        n.busy_until = 0;
        let inbox = std::mem::take(&mut n.inbox);
        n.deferred.clear();
        n.wake_at = None;
        n.wake_gen += 1;
        self.emit(EventKind::Crash { node: id, lost_records: lost });
        // Messages that arrived while the process was busy die with it, unread: the trace
        // says so, or they would seem in flight forever.
        for input in inbox {
            if let Inbound::Message(env, msg, sent, _) = input {
                self.emit_lost(&env, msg, sent, DropReason::NodeDown);
            }
        }
        self.reset_connections_to(id);
    }

    /// A dead process's sockets are closed by its host, so every request it held (parked,
    /// queued or being handled) fails at its sender: NetworkClient sees the disconnect
    /// and completes the request as disconnected. Requests still on the wire fail when
    /// they arrive ([`World::deliver`]); a request already answered gets its answer first.
    fn reset_connections_to(&mut self, dead: NodeId) {
        let on_wire = |m: &InFlight<P::Message>, node: NodeId, c: u64| {
            let e = &m.envelope;
            e.correlation == c && ((e.from, e.to) == (node, dead) || (e.from, e.to) == (dead, node))
        };
        for node in 0..self.nodes.len() as NodeId {
            let n = &self.nodes[node as usize];
            let Some((c, rpc)) = n.replica.as_ref().and_then(|r| r.awaiting(dead)) else {
                continue;
            };
            let answered =
                n.inbox.iter().any(|i| matches!(i, Inbound::Message(e, ..) if e.from == dead && e.correlation == c));
            if !answered && !self.in_flight.values().any(|m| on_wire(m, node, c)) {
                self.schedule_disconnect(node, dead, c, rpc);
            }
        }
    }

    fn restart(&mut self, id: NodeId) {
        if self.nodes[id as usize].replica.is_some() {
            return;
        }
        self.emit(EventKind::Restart { node: id });
        self.start_node(id, Start::Restart);
    }

    fn set_workload(&mut self, writes_per_second: u32) {
        self.writes_per_second = writes_per_second;
        self.workload_gen += 1;
        if writes_per_second > 0 {
            let interval = (1000 / writes_per_second as u64).max(1);
            let gen = self.workload_gen;
            self.schedule(self.now + interval, Pending::Workload { gen });
        }
    }

    /// A client write goes to the leader (the running leader of the highest epoch).
    pub fn client_write(&mut self, record: Option<ClientRecord>) -> WriteOutcome {
        let record = record.unwrap_or_else(|| self.random_record());
        let kind = record.kind();
        let Some((leader, _)) = self.leader() else {
            self.emit(EventKind::Write { node: None, accepted: false, offset: None, kind });
            return WriteOutcome::Rejected { reason: "no leader: the quorum has not elected one".into() };
        };
        let mut result = Err(String::new());
        self.run_replica(leader, |r, ctx| {
            let (written, wake) = r.write(ctx, record);
            result = written;
            Some(wake)
        });
        match result {
            Ok(offset) => {
                self.emit(EventKind::Write { node: Some(leader), accepted: true, offset: Some(offset), kind });
                WriteOutcome::Accepted { node: leader, offset }
            }
            Err(reason) => {
                self.emit(EventKind::Write { node: Some(leader), accepted: false, offset: None, kind });
                WriteOutcome::Rejected { reason }
            }
        }
    }

    /// The workload's metadata records: brokers register, topics come and go, partition
    /// leaders move.
    fn random_record(&mut self) -> ClientRecord {
        let r = &mut self.workload_rng;
        let names = &self.topic_names;
        match r.below(10) {
            0..=1 => ClientRecord::RegisterBroker { broker_id: r.below(8) as u32 + 1 },
            2..=5 => {
                let name = names[r.below(WORKLOAD_TOPICS) as usize].clone();
                ClientRecord::CreateTopic { name, partitions: r.range(1, 6) as u32 }
            }
            6 => ClientRecord::DeleteTopic { name: names[r.below(WORKLOAD_TOPICS) as usize].clone() },
            _ => ClientRecord::PartitionChange {
                topic: names[r.below(WORKLOAD_TOPICS) as usize].clone(),
                partition: r.below(6) as u32,
                leader: r.below(8) as u32 + 1,
            },
        }
    }

    /// Roughly what a clone of this world copies instead of sharing: node state, queued
    /// work, and messages in flight or waiting in inboxes with the records they carry.
    pub fn unshared_bytes(&self) -> u64 {
        const NODE_BYTES: u64 = 1024;
        const QUEUED_BYTES: u64 = 40;
        const MESSAGE_BYTES: u64 = 256;
        let message = |env: &Envelope<P::Message>| MESSAGE_BYTES + env.message.records_carried() * RECORD_BYTES;
        let in_flight: u64 = self.in_flight.values().map(|m| message(&m.envelope)).sum();
        let nodes: u64 = self
            .nodes
            .iter()
            .map(|n| {
                let inbox: u64 = n
                    .inbox
                    .iter()
                    .map(|i| match i {
                        Inbound::Message(env, ..) => message(env),
                        Inbound::Disconnect { .. } | Inbound::Poll => QUEUED_BYTES,
                    })
                    .sum();
                let log = n.log().map(|l| l.unshared_bytes()).unwrap_or(0);
                NODE_BYTES + inbox + n.deferred.len() as u64 * MESSAGE_BYTES + log
            })
            .sum();
        nodes
            + in_flight
            + self.in_flight.index_bytes()
            + self.queue.ring_bytes()
            + self.queue.len() as u64 * QUEUED_BYTES
    }

    /// The bytes held by every version of this world's logs, images and checker.
    pub fn meter(&self) -> &Meter {
        &self.meter
    }

    pub fn events_emitted(&self) -> u64 {
        self.event_seq
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::ClusterSpec;

    /// Runs a world with no inputs to `stop`, one step at a time.
    fn run(w: &mut World, stop: u64) -> Result<(), Livelock> {
        let mut applied = 0;
        loop {
            w.events.clear();
            if w.run_step(&[], &mut applied, stop)? == RunStep::Reached {
                return Ok(());
            }
        }
    }

    #[test]
    fn a_zero_time_loop_is_stopped_as_a_livelock() {
        // Validation refuses zero latency (limits::LATENCY_MS); built past it, the unattached
        // voters' leader-discovery Fetches bounce at t = 0 forever: NOT_LEADER_OR_FOLLOWER
        // counts as handled (KafkaRaftClient.maybeHandleCommonResponse), so no backoff.
        let mut spec = ClusterSpec { voters: 3, seed: 1, ..ClusterSpec::default() }.resolve::<KRaft>().unwrap();
        (spec.network.latency_min_ms, spec.network.latency_max_ms) = (0, 0);
        let mut w = World::new(spec);
        assert_eq!(run(&mut w, 60_000), Err(Livelock { t: 0 }));
        assert_eq!(w.now, 0);
        // At one millisecond of latency the same cluster elects a leader.
        let spec = ClusterSpec { voters: 3, seed: 1, ..ClusterSpec::default() }.resolve::<KRaft>().unwrap();
        let mut w = World::new(spec);
        assert_eq!(run(&mut w, 60_000), Ok(()));
        assert!(w.leader().is_some());
    }

    /// The world queues a replica's wake-up from its answer to its last input; under test
    /// `reschedule_wake` asserts that answer is what the replica's timers say now, so no
    /// input changes a timer without answering with it. Random chaos runs: crashes,
    /// partitions, slow disks (inputs while blocked in a flush), resignations.
    #[test]
    #[cfg(feature = "chaos")]
    fn every_input_answers_with_the_replicas_deadline() {
        use crate::chaos::{run_seed, ChaosOptions};
        let opts =
            ChaosOptions { seconds: 30, voters: 5, observers: 2, unsafe_switches: vec![], ..ChaosOptions::default() };
        for seed in 1..=40 {
            assert!(run_seed(seed, &opts).violations.is_empty(), "seed {seed}");
        }
    }

    /// Every queued event moves through the timing wheel's slots and, when far, its heap:
    /// the rare Disconnect is boxed so the common ones (Deliver, Wake, FlushDone) set the
    /// size. 64-bit sizes.
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn queued_events_stay_small() {
        let size = std::mem::size_of::<Pending<KRaft>>();
        assert!(size <= 24, "Pending is {size} bytes");
    }
}
