//! A TEST FIXTURE, not a product feature: a second protocol written against
//! `kraft_boundary` alone (no KRaft type anywhere), so the tests can show the world runs
//! a protocol it knows only through the boundary.
//!
//! `Appointed`: the first voter is the leader for good. It never holds an election: at
//! every start it takes the next epoch, writes a record opening it and pushes its log
//! to the others (`Append`, answered by `Ack` once the follower has flushed). It commits
//! the longest prefix that a majority of voters, itself among them, hold on disk, and
//! only once that covers a record of its own epoch (so a commit never falls back after a
//! restart). Followers have no timers; while the leader is down nothing is written. The
//! config key `fixture.commitAlone` = 1 makes the leader commit what it alone has
//! flushed: the unsafe variant the checker must catch. It models no releases: a spec
//! naming one (`kafkaRelease`) is refused.

use kraft_base::shared::Meter;
use kraft_boundary::{
    Applied, ClientRecord, Ctx, DurableState, Envelope, Epoch, Explain, LogEntry, LogView, MetadataImage, Named,
    NodeId, Note, Offset, Outcome, Output, PeerProgress, PersistedElection, Protocol, ProtocolSpec, ReplicaCore,
    RpcName, Setup, SnapshotId, Start, StateName, StateTimer, Summary, Verdict, Wake, WireMessage,
};
use serde::Serialize;
use std::fmt;

/// How often the leader pushes its log (and heartbeats) to each follower.
const PUSH_EVERY_MS: u64 = 50;
/// An Append unanswered this long is sent again; a follower found down is left alone
/// this long.
const RESEND_AFTER_MS: u64 = 300;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Appointed;

#[derive(Clone, Debug)]
pub struct Config {
    commit_alone: bool,
}

impl Protocol for Appointed {
    type Replica = Node;
    type Durable = Disk;
    type Log = Log;
    type Message = Message;
    type Config = Config;
    type Rpc = Rpc;
    type Summary = Brief;
    type State = State;
    type Reason = Why;
    type Decision = NoVote;

    fn configure(spec: &ProtocolSpec<'_>) -> Result<Config, (String, String)> {
        // It has no releases: a run that asks for one would not model what it names.
        if let Some(release) = spec.release {
            return Err(("kafkaRelease".into(), format!("this protocol has no releases; got \"{release}\"")));
        }
        if spec.dynamic_quorum {
            return Err(("quorum".into(), "this protocol's voters never change: only static".into()));
        }
        let mut config = Config { commit_alone: false };
        for (key, value) in spec.config {
            match key.as_str() {
                "fixture.commitAlone" => config.commit_alone = *value == 1,
                _ => return Err((format!("config.{key}"), "unknown config key".into())),
            }
        }
        Ok(config)
    }
}

// ---- vocabulary ------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Rpc {
    Append,
    Ack,
}
impl Named for Rpc {
    fn name(self) -> &'static str {
        match self {
            Rpc::Append => "Append",
            Rpc::Ack => "Ack",
        }
    }
}
impl RpcName for Rpc {
    fn is_request(self) -> bool {
        self == Rpc::Append
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    Follower,
    Leader,
    /// No replica is ever in it: the timeline's name for a node that is down.
    Crashed,
}
impl Named for State {
    fn name(self) -> &'static str {
        match self {
            State::Follower => "follower",
            State::Leader => "leader",
            State::Crashed => "crashed",
        }
    }
}
impl StateName for State {
    const CRASHED: State = State::Crashed;
    fn is_leader(self) -> bool {
        self == State::Leader
    }
    /// The leader is appointed: nobody ever asks for a vote.
    fn seeks_votes(self) -> bool {
        false
    }
    fn is_candidate(self) -> bool {
        false
    }
    /// A leader takes its epoch at its start, with nothing committed yet.
    fn clears_committed_offset(self) -> bool {
        self == State::Leader
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Why {
    Startup,
    Restart,
    NewEpoch,
}
impl Named for Why {
    fn name(self) -> &'static str {
        match self {
            Why::Startup => "startup",
            Why::Restart => "restart",
            Why::NewEpoch => "new-epoch",
        }
    }
}

/// No replica ever votes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum NoVote {}
impl Verdict for NoVote {
    fn granted(self) -> bool {
        match self {}
    }
    fn name(self) -> &'static str {
        match self {}
    }
    fn describe(self) -> String {
        match self {}
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Brief {
    Append { from: Offset, records: u32, commit: Option<Offset> },
    Ack { end: Offset, ok: bool },
}
impl fmt::Display for Brief {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Brief::Append { from, records, commit } => {
                write!(f, "from={from} records={records} commit={}", commit.map_or("-".into(), |c| c.to_string()))
            }
            Brief::Ack { end, ok } => write!(f, "end={end} ok={ok}"),
        }
    }
}
impl Summary for Brief {
    /// A follower turns a push down: it does not continue the follower's log.
    fn outcome(&self) -> Outcome {
        match self {
            Brief::Ack { ok: false, .. } => Outcome::Refused,
            _ => Outcome::Plain,
        }
    }
}

// ---- messages --------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    Append(Push),
    /// `ok`: the follower holds the leader's log up to `end`, flushed; else `end` is
    /// where the leader should push from.
    Ack {
        epoch: Epoch,
        end: Offset,
        ok: bool,
    },
}

/// The leader's records from offset `from` on, and its commit.
#[derive(Clone, Debug, PartialEq)]
pub struct Push {
    epoch: Epoch,
    from: Offset,
    /// The epoch of the record before `from` (0 at offset 0).
    prev_epoch: Epoch,
    records: Vec<Record>,
    commit: Option<Offset>,
}

impl WireMessage for Message {
    type Rpc = Rpc;
    type Summary = Brief;
    fn kind(&self) -> Rpc {
        match self {
            Message::Append(_) => Rpc::Append,
            Message::Ack { .. } => Rpc::Ack,
        }
    }
    fn epoch(&self) -> Epoch {
        match self {
            Message::Append(Push { epoch, .. }) | Message::Ack { epoch, .. } => *epoch,
        }
    }
    fn summary(&self) -> Brief {
        match self {
            Message::Append(p) => Brief::Append { from: p.from, records: p.records.len() as u32, commit: p.commit },
            Message::Ack { end, ok, .. } => Brief::Ack { end: *end, ok: *ok },
        }
    }
    fn records_carried(&self) -> u64 {
        match self {
            Message::Append(p) => p.records.len() as u64,
            Message::Ack { .. } => 0,
        }
    }
}

// ---- the log and the disk --------------------------------------------------------------

/// One record of the log.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    offset: Offset,
    epoch: Epoch,
    id: u64,
    body: Says,
}

/// What a record says: the leader opened its epoch, or a client's record.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type")]
pub enum Says {
    NewEpoch {
        leader: NodeId,
    },
    #[serde(untagged)]
    Client(ClientRecord),
}

impl Says {
    fn kind(&self) -> &'static str {
        match self {
            Says::NewEpoch { .. } => "NewEpoch",
            Says::Client(c) => c.kind(),
        }
    }
}

impl LogEntry for Record {
    type Body = Says;
    fn offset(&self) -> Offset {
        self.offset
    }
    fn epoch(&self) -> Epoch {
        self.epoch
    }
    fn id(&self) -> u64 {
        self.id
    }
    fn body(&self) -> &Says {
        &self.body
    }
}

/// Records from offset 0, no snapshots.
#[derive(Clone, Debug, Default)]
pub struct Log {
    records: Vec<Record>,
    flushed: Offset,
}

impl Log {
    fn append(&mut self, record: Record) {
        debug_assert_eq!(record.offset, self.end_offset());
        self.records.push(record);
    }
    fn truncate_to(&mut self, offset: Offset) {
        self.records.truncate(offset as usize);
        self.flushed = self.flushed.min(offset);
    }
}

impl LogView for Log {
    type Entry = Record;
    fn start_offset(&self) -> Offset {
        0
    }
    fn end_offset(&self) -> Offset {
        self.records.len() as Offset
    }
    fn flushed_offset(&self) -> Offset {
        self.flushed
    }
    fn last_epoch(&self) -> Epoch {
        self.records.last().map_or(0, |r| r.epoch)
    }
    fn get(&self, offset: Offset) -> Option<&Record> {
        self.records.get(offset as usize)
    }
    fn epoch_at(&self, offset: Offset) -> Option<Epoch> {
        self.get(offset).map(|r| r.epoch)
    }
    fn compacted(&self) -> &[Record] {
        &[]
    }
    fn read(&self, offset: Offset, max: usize) -> Vec<Record> {
        self.records.iter().skip(offset as usize).take(max).cloned().collect()
    }
    fn latest_snapshot(&self) -> Option<SnapshotId> {
        None
    }
    fn earliest_snapshot(&self) -> Option<SnapshotId> {
        None
    }
    fn continues_snapshot(&self, _: SnapshotId) -> bool {
        true
    }
    fn unshared_bytes(&self) -> u64 {
        self.records.len() as u64 * kraft_boundary::record::RECORD_BYTES
    }
}

#[derive(Clone, Debug)]
pub struct Disk {
    election: PersistedElection,
    log: Log,
}

impl DurableState<Appointed> for Disk {
    fn blank(_: &Meter) -> Disk {
        Disk { election: PersistedElection::default(), log: Log::default() }
    }
    fn log(&self) -> &Log {
        &self.log
    }
    fn election(&self) -> PersistedElection {
        self.election
    }
}

// ---- the replica -----------------------------------------------------------------------

/// The leader's view of one follower.
#[derive(Clone, Debug)]
struct Peer {
    id: NodeId,
    /// Where the next push starts.
    next: Offset,
    /// The end of what it holds of the leader's log, flushed.
    matched: Offset,
    /// The push waiting for its Ack (its correlation).
    in_flight: Option<u64>,
    /// No push before then: one is unanswered, or the follower was found down.
    quiet_until: u64,
}

#[derive(Clone, Debug)]
struct Leading {
    /// The offset of this epoch's LeaderChange record.
    epoch_start: Offset,
    peers: Vec<Peer>,
    next_push: u64,
}

#[derive(Clone, Debug)]
pub struct Node {
    id: NodeId,
    voters: Vec<NodeId>,
    config: Config,
    election: PersistedElection,
    log: Log,
    hw: Option<Offset>,
    image: MetadataImage,
    leading: Option<Leading>,
    /// A flush ended since the last poll: the leader's commit may move.
    flush_seen: bool,
    next_correlation: u64,
}

impl Node {
    fn state(&self) -> State {
        if self.leading.is_some() {
            State::Leader
        } else {
            State::Follower
        }
    }

    /// Persists `election`, then enters `to` (the epoch on disk always leads the state).
    fn enter(&mut self, ctx: &mut Ctx<Appointed>, election: PersistedElection, to: State, reason: Why) {
        let from = self.state();
        if election != self.election {
            self.election = election;
            ctx.note(Note::Persisted { election });
        }
        let e = self.election;
        ctx.note(Note::StateChanged { from, to, epoch: e.epoch, leader: e.leader, voted: e.voted, reason });
    }

    fn append(&mut self, ctx: &mut Ctx<Appointed>, body: Says) -> Offset {
        let offset = self.log.end_offset();
        let (epoch, kind) = (self.election.epoch, body.kind());
        self.log.append(Record { offset, epoch, id: ctx.ids.next_record_id(), body });
        ctx.note(Note::Appended { first: offset, last: offset, epoch, kind });
        ctx.out.push(Output::Flush { up_to: offset + 1 });
        offset
    }

    /// Pushes the log to every follower not waiting on: none unanswered, none found down
    /// lately (`RESEND_AFTER_MS`).
    fn push(&mut self, ctx: &mut Ctx<Appointed>) {
        let Some(leading) = self.leading.as_mut() else { return };
        for p in &mut leading.peers {
            if ctx.now < p.quiet_until {
                continue;
            }
            self.next_correlation += 1;
            let from = p.next.min(self.log.end_offset());
            let prev_epoch = from.checked_sub(1).and_then(|o| self.log.epoch_at(o)).unwrap_or(0);
            let message = Message::Append(Push {
                epoch: self.election.epoch,
                from,
                prev_epoch,
                records: self.log.read(from, 64),
                commit: self.hw,
            });
            (p.in_flight, p.quiet_until) = (Some(self.next_correlation), ctx.now + RESEND_AFTER_MS);
            ctx.send(self.id, p.id, self.next_correlation, message);
        }
    }

    /// Commits what a majority of voters hold flushed, the leader among them (or, with
    /// `fixture.commitAlone`, what the leader alone has flushed), once it covers a record
    /// of this epoch.
    fn maybe_commit(&mut self, ctx: &mut Ctx<Appointed>) {
        let Some(leading) = &self.leading else { return };
        let mine = self.log.flushed_offset();
        let candidate = if self.config.commit_alone {
            mine
        } else {
            let mut ends: Vec<Offset> = leading.peers.iter().map(|p| p.matched).chain([mine]).collect();
            ends.sort_unstable_by(|a, b| b.cmp(a));
            ends[self.voters.len() / 2].min(mine)
        };
        if candidate <= leading.epoch_start || self.hw.is_some_and(|hw| candidate <= hw) {
            return;
        }
        let holding = |id: NodeId| {
            if id == self.id {
                mine
            } else {
                leading.peers.iter().find(|p| p.id == id).map_or(0, |p| p.matched)
            }
        };
        let majority = self.voters.iter().filter(|v| holding(**v) >= candidate).fold(0u64, |bits, v| bits | 1 << v);
        self.set_hw(ctx, candidate, majority);
    }

    fn set_hw(&mut self, ctx: &mut Ctx<Appointed>, new: Offset, majority: u64) {
        ctx.note(Note::HighWatermark { old: self.hw, new, majority });
        self.hw = Some(new);
        while self.image.applied_offset < new {
            let Some(r) = self.log.get(self.image.applied_offset) else { break };
            let applied = match &r.body {
                Says::NewEpoch { .. } => Applied::LeaderChange,
                Says::Client(c) => Applied::Client(c),
            };
            self.image.apply(r.offset, applied);
        }
    }

    /// A follower takes the leader's push (the Raft paper's AppendEntries receiver rules):
    /// answers with how far it now holds the leader's log.
    fn on_push(&mut self, ctx: &mut Ctx<Appointed>, leader: NodeId, push: Push) -> Message {
        let Push { epoch, from, prev_epoch, records, commit } = push;
        if epoch < self.election.epoch {
            return Message::Ack { epoch: self.election.epoch, end: self.log.end_offset(), ok: false };
        }
        if epoch > self.election.epoch || self.election.leader.is_none() {
            let election = PersistedElection { epoch, leader: Some(leader), voted: None };
            self.enter(ctx, election, State::Follower, Why::NewEpoch);
        }
        let end = self.log.end_offset();
        let prev_matches = from == 0 || self.log.epoch_at(from - 1) == Some(prev_epoch);
        if from > end || !prev_matches {
            // Push from where the logs may still agree: my end, or one record back.
            let hint = if from > end { end } else { from - 1 };
            return Message::Ack { epoch, end: hint, ok: false };
        }
        let matched = from + records.len() as Offset;
        let mut appended: Option<(Offset, Offset, Epoch, &'static str)> = None;
        for r in records {
            match self.log.epoch_at(r.offset) {
                Some(e) if e == r.epoch => continue,
                Some(_) => {
                    let (from_leo, to) = (self.log.end_offset(), r.offset);
                    self.log.truncate_to(to);
                    ctx.note(Note::Truncated { from_leo, to, diverging_epoch: Some(r.epoch), hw: self.hw });
                }
                None => {}
            }
            let (offset, epoch, kind) = (r.offset, r.epoch, r.body.kind());
            self.log.append(r);
            appended = Some((appended.map_or(offset, |a| a.0), offset, epoch, kind));
        }
        if let Some((first, last, epoch, kind)) = appended {
            ctx.note(Note::Appended { first, last, epoch, kind });
            ctx.out.push(Output::Flush { up_to: last + 1 });
        }
        // Only what this push matched is the leader's: a stale suffix beyond it may not be.
        if let Some(c) = commit.map(|c| c.min(matched)).filter(|c| self.hw.is_none_or(|hw| *c > hw)) {
            self.set_hw(ctx, c, 0);
        }
        Message::Ack { epoch, end: matched, ok: true }
    }

    fn on_ack(&mut self, from: NodeId, correlation: u64, epoch: Epoch, end: Offset, ok: bool) {
        let my_epoch = self.election.epoch;
        let Some(p) = self.leading.as_mut().and_then(|l| l.peers.iter_mut().find(|p| p.id == from)) else { return };
        if epoch != my_epoch || p.in_flight != Some(correlation) {
            return;
        }
        (p.in_flight, p.quiet_until) = (None, 0);
        if ok {
            p.matched = p.matched.max(end);
            p.next = end;
        } else {
            p.next = end;
        }
    }

    fn wake(&self, now: u64) -> Wake {
        Wake(self.next_deadline(now))
    }
}

impl ReplicaCore<Appointed> for Node {
    fn start(ctx: &mut Ctx<Appointed>, setup: Setup<'_, Appointed>, disk: Disk, start: Start) -> (Node, Wake) {
        let Setup { id, voters, config } = setup;
        let mut node = Node {
            id,
            voters: voters.to_vec(),
            config: config.clone(),
            election: disk.election,
            log: disk.log,
            hw: None,
            image: MetadataImage::default(),
            leading: None,
            flush_seen: false,
            next_correlation: 0,
        };
        let reason = match start {
            Start::Startup => Why::Startup,
            Start::Restart => Why::Restart,
        };
        if voters.first() == Some(&id) {
            let election = PersistedElection { epoch: node.election.epoch + 1, leader: Some(id), voted: None };
            node.enter(ctx, election, State::Leader, reason);
            let peers = voters.iter().filter(|v| **v != id).map(|&v| Peer {
                id: v,
                next: 0,
                matched: 0,
                in_flight: None,
                quiet_until: 0,
            });
            node.leading =
                Some(Leading { epoch_start: node.log.end_offset(), peers: peers.collect(), next_push: ctx.now });
            node.append(ctx, Says::NewEpoch { leader: id });
        } else {
            let election = node.election;
            node.enter(ctx, election, State::Follower, reason);
        }
        let wake = node.poll(ctx);
        (node, wake)
    }

    fn handle(&mut self, ctx: &mut Ctx<Appointed>, envelope: Envelope<Message>) -> Wake {
        let Envelope { from, correlation, message, .. } = envelope;
        match message {
            Message::Append(push) => {
                let answer = self.on_push(ctx, from, push);
                ctx.send(self.id, from, correlation, answer);
            }
            Message::Ack { epoch, end, ok } => {
                self.on_ack(from, correlation, epoch, end, ok);
                self.maybe_commit(ctx);
                self.push(ctx);
            }
        }
        self.poll(ctx)
    }

    fn disconnected(&mut self, ctx: &mut Ctx<Appointed>, peer: NodeId, correlation: u64) -> Wake {
        if let Some(p) = self.leading.as_mut().and_then(|l| l.peers.iter_mut().find(|p| p.id == peer)) {
            if p.in_flight == Some(correlation) {
                p.in_flight = None; // and quiet until the resend time
            }
        }
        self.wake(ctx.now)
    }

    fn write(&mut self, ctx: &mut Ctx<Appointed>, record: ClientRecord) -> (Result<Offset, String>, Wake) {
        if self.leading.is_none() {
            return (Err(format!("n{} is a follower", self.id)), self.wake(ctx.now));
        }
        let offset = self.append(ctx, Says::Client(record));
        self.push(ctx);
        (Ok(offset), self.wake(ctx.now))
    }

    fn resign(&mut self, now: u64) -> (Result<(), String>, Wake) {
        (Err("an appointed leader never resigns".into()), self.wake(now))
    }

    fn flushed(&mut self, now: u64, up_to: Offset) -> Wake {
        self.log.flushed = self.log.flushed.max(up_to.min(self.log.end_offset()));
        self.flush_seen = true;
        self.wake(now)
    }

    fn poll(&mut self, ctx: &mut Ctx<Appointed>) -> Wake {
        self.flush_seen = false;
        self.maybe_commit(ctx);
        if self.leading.as_ref().is_some_and(|l| l.next_push <= ctx.now) {
            self.push(ctx);
            if let Some(l) = self.leading.as_mut() {
                l.next_push = ctx.now + PUSH_EVERY_MS;
            }
        }
        self.wake(ctx.now)
    }

    /// Nothing runs beside a blocked thread.
    fn poll_during_flush(&mut self, _: &mut Ctx<Appointed>) -> Wake {
        Wake(None)
    }

    fn deadline_during_flush(&self) -> Option<u64> {
        None
    }

    fn next_deadline(&self, now: u64) -> Option<u64> {
        let l = self.leading.as_ref()?;
        Some(if self.flush_seen { now } else { l.next_push })
    }

    fn forget_compacted(&mut self) {}

    fn id(&self) -> NodeId {
        self.id
    }
    fn state_name(&self) -> State {
        self.state()
    }
    fn epoch(&self) -> Epoch {
        self.election.epoch
    }
    fn leader_id(&self) -> Option<NodeId> {
        self.election.leader
    }
    fn voted_for(&self) -> Option<NodeId> {
        None
    }
    fn voters(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.voters.iter().copied()
    }
    fn log(&self) -> &Log {
        &self.log
    }
    fn committed_offset(&self) -> Option<Offset> {
        self.hw
    }
    fn image(&self) -> &MetadataImage {
        &self.image
    }
    fn durable(&self) -> Disk {
        let mut log = self.log.clone();
        log.truncate_to(self.log.flushed);
        Disk { election: self.election, log }
    }
    fn awaiting(&self, peer: NodeId) -> Option<(u64, Rpc)> {
        let p = self.leading.as_ref()?.peers.iter().find(|p| p.id == peer)?;
        p.in_flight.map(|c| (c, Rpc::Append))
    }
    fn state_timer(&self) -> Option<StateTimer> {
        None
    }
    fn replication(&self) -> Option<Vec<PeerProgress>> {
        let l = self.leading.as_ref()?;
        let me = PeerProgress {
            id: self.id,
            is_voter: true,
            end_offset: Some(self.log.end_offset()),
            last_fetch_ms: None,
            last_caught_up_ms: None,
        };
        let peer = |p: &Peer| PeerProgress {
            id: p.id,
            is_voter: true,
            end_offset: Some(p.matched),
            last_fetch_ms: None,
            last_caught_up_ms: None,
        };
        Some([me].into_iter().chain(l.peers.iter().map(peer)).collect())
    }
}

// ---- explanations ----------------------------------------------------------------------

impl Explain for Appointed {
    fn note(node: NodeId, note: &Note<Appointed>) -> String {
        match note {
            Note::StateChanged { to, epoch, reason, .. } => {
                format!("n{node} is {} of epoch {epoch} ({})", to.name(), reason.name())
            }
            Note::Persisted { election } => format!("n{node} wrote epoch {} to disk", election.epoch),
            Note::VoteDecided { decision, .. } => match *decision {},
            Note::Appended { first, last, .. } => format!("n{node} appended {first}..={last}"),
            Note::HighWatermark { new, .. } => format!("n{node} commits below {new}"),
            Note::Truncated { to, .. } => format!("n{node} dropped what the leader does not hold, from {to}"),
            Note::SnapshotTaken { .. }
            | Note::SnapshotFetched { .. }
            | Note::SnapshotLoaded { .. }
            | Note::SnapshotDeleted { .. } => format!("n{node}: the fixture takes no snapshots"),
        }
    }
    fn sent(from: NodeId, to: NodeId, rpc: Rpc, epoch: Epoch, summary: &Brief) -> String {
        format!("n{from} sends n{to} {} of epoch {epoch}: {summary}", rpc.name())
    }
    fn delivered(from: NodeId, to: NodeId, rpc: Rpc, _: Epoch, _: &Brief) -> String {
        format!("n{to} takes n{from}'s {}", rpc.name())
    }
    fn disconnected(node: NodeId, peer: NodeId, _: Rpc) -> String {
        format!("n{node} pushes to n{peer} again later: n{peer} is down")
    }
    fn flushed(node: NodeId, offset: Offset) -> String {
        format!("n{node} flushed below {offset}")
    }
    fn crashed(node: NodeId, lost_records: u64) -> String {
        format!("n{node} crashed and lost {lost_records} unflushed record(s)")
    }
    fn restarted(node: NodeId) -> String {
        format!("n{node} restarted from its disk")
    }
    fn write(node: Option<NodeId>, accepted: bool, _: Option<Offset>, kind: &str) -> String {
        match (node, accepted) {
            (Some(n), true) => format!("n{n} took a client's {kind}"),
            _ => format!("a client's {kind} was refused: only the appointed leader takes writes"),
        }
    }
}
