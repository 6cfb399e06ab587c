//! A tiny hand-driven network for protocol tests (in the style of etcd-io/raft's
//! tests): replicas exchange messages only when the test says so, and every message is
//! written to a transcript the test can assert, one line per message.

#![allow(dead_code)]

use kraft_base::rng::Rng;
use kraft_protocol::log::ReplicaLog;
use kraft_protocol::rpc::Envelope;
use kraft_protocol::state::ElectionState;
use kraft_protocol::{
    ClientRecord, Ctx, Durable, Epoch, IdSource, NodeId, Note, Output, QuorumConfig, Reason, Record, RecordBody,
    Replica, ReplicaSetup, Unsafe,
};
use std::collections::{BTreeMap, VecDeque};

pub struct Net {
    pub now: u64,
    pub replicas: BTreeMap<NodeId, Replica>,
    pub voters: Vec<NodeId>,
    pub queue: VecDeque<Envelope>,
    pub transcript: Vec<String>,
    pub notes: Vec<(NodeId, Note)>,
    pub switches: Unsafe,
    pub config: QuorumConfig,
    rng: Rng,
    ids: IdSource,
    /// Links that drop everything (from, to).
    pub cut: Vec<(NodeId, NodeId)>,
}

/// A log holding one record per entry of `epochs` (offsets 0..), every record flushed.
/// Records are named after their (offset, epoch), as in the Raft paper's figures: the
/// same (offset, epoch) in two logs is the same record.
pub fn log_of(epochs: &[Epoch]) -> ReplicaLog {
    let mut log = ReplicaLog::default();
    let records: Vec<Record> = epochs
        .iter()
        .enumerate()
        .map(|(i, &e)| Record {
            offset: i as u64,
            epoch: e,
            id: 1_000_000 + i as u64 * 100 + e as u64,
            body: RecordBody::Client(ClientRecord::RegisterBroker { broker_id: i as u32 }),
        })
        .collect();
    assert!(log.append(records));
    log.mark_flushed(log.end_offset());
    log
}

impl Net {
    pub fn new(voters: u32, observers: u32) -> Net {
        Net::with_switches(voters, observers, Unsafe::default())
    }

    /// A cold cluster whose startup bootstrap fetches are dropped, so a script starts
    /// from silence. Node 0 has the shortest election timeout (as if it drew the lowest
    /// random value); the others' are long enough never to fire unless a test says so.
    pub fn with_switches(voters: u32, observers: u32, switches: Unsafe) -> Net {
        let mut net = Net::empty(voters, switches);
        for id in 0..voters + observers {
            net.start(id, ElectionState::default(), ReplicaLog::default());
        }
        net.drop_all();
        net.transcript.clear();
        net
    }

    fn config_for(&self, id: NodeId) -> QuorumConfig {
        let mut c = self.config.clone();
        if id != 0 {
            c.election_timeout_ms = 60_000;
        }
        c
    }

    /// No replicas yet: start them with `start` and a chosen disk.
    pub fn empty(voters: u32, switches: Unsafe) -> Net {
        Net {
            now: 0,
            replicas: BTreeMap::new(),
            voters: (0..voters).collect(),
            queue: VecDeque::new(),
            transcript: Vec::new(),
            notes: Vec::new(),
            switches,
            config: QuorumConfig::default(),
            rng: Rng::new(7),
            ids: IdSource::default(),
            cut: Vec::new(),
        }
    }

    pub fn start(&mut self, id: NodeId, election: ElectionState, log: ReplicaLog) {
        let mut out = Vec::new();
        let setup = ReplicaSetup {
            id,
            bootstrap_only: false,
            voters: self.voters.clone(),
            config: self.config_for(id),
            switches: self.switches,
            snapshot_interval: 0,
        };
        // The harness polls by reading `next_deadline`, not by the replica's answers.
        let (r, _wake) = {
            let mut ctx = Ctx { now: self.now, rng: &mut self.rng, ids: &mut self.ids, out: &mut out };
            Replica::start(&mut ctx, setup, Durable { election, log }, Reason::Startup)
        };
        self.replicas.insert(id, r);
        self.route(id, out);
    }

    pub fn replica(&self, id: NodeId) -> &Replica {
        &self.replicas[&id]
    }

    pub fn state(&self, id: NodeId) -> &'static str {
        self.replica(id).state_name().name()
    }

    fn route(&mut self, id: NodeId, out: Vec<Output>) {
        for o in out {
            match o {
                Output::Send(env) => {
                    self.transcript.push(format!(
                        "n{} -> n{} {} e{} {}",
                        env.from,
                        env.to,
                        env.message.kind().name(),
                        env.message.epoch(),
                        env.message.summary()
                    ));
                    self.queue.push_back(env);
                }
                Output::Flush { up_to } => {
                    let _wake = self.replicas.get_mut(&id).unwrap().flushed(self.now, up_to);
                }
                Output::Note(n) => self.notes.push((id, n)),
            }
        }
    }

    pub fn with<T>(&mut self, id: NodeId, f: impl FnOnce(&mut Replica, &mut Ctx) -> T) -> T {
        let mut out = Vec::new();
        let r = self.replicas.get_mut(&id).expect("node exists");
        let value = {
            let mut ctx = Ctx { now: self.now, rng: &mut self.rng, ids: &mut self.ids, out: &mut out };
            f(r, &mut ctx)
        };
        self.route(id, out);
        self.poll_while_due(id);
        value
    }

    /// Flushes finish at once here; a replica back from one with work due now (a follower
    /// setting its HW and fetching again) runs at once, as the simulator wakes it.
    fn poll_while_due(&mut self, id: NodeId) {
        let now = self.now;
        while self.replicas.get(&id).and_then(|r| r.next_deadline(now)).map(|d| d <= now).unwrap_or(false) {
            let mut out = Vec::new();
            let r = self.replicas.get_mut(&id).expect("node exists");
            let mut ctx = Ctx { now, rng: &mut self.rng, ids: &mut self.ids, out: &mut out };
            r.poll(&mut ctx);
            self.route(id, out);
        }
    }

    /// Delivers queued messages in order until none are left (or `limit` of them).
    pub fn deliver(&mut self, limit: usize) -> usize {
        let mut n = 0;
        while n < limit {
            let Some(env) = self.queue.pop_front() else {
                break;
            };
            n += 1;
            if self.cut.contains(&(env.from, env.to)) || !self.replicas.contains_key(&env.to) {
                continue;
            }
            let to = env.to;
            self.with(to, |r, ctx| r.handle(ctx, env));
        }
        n
    }

    pub fn deliver_all(&mut self) {
        self.deliver(10_000);
    }

    /// `rounds` times: one millisecond passes, then every queued message is delivered.
    pub fn settle(&mut self, rounds: usize) {
        for _ in 0..rounds {
            self.tick(1);
            self.deliver_all();
        }
    }

    /// Drops every queued message.
    pub fn drop_all(&mut self) {
        self.queue.clear();
    }

    /// Moves time forward and polls every replica.
    pub fn tick(&mut self, ms: u64) {
        self.now += ms;
        let ids: Vec<NodeId> = self.replicas.keys().copied().collect();
        for id in ids {
            self.with(id, |r, ctx| r.poll(ctx));
        }
    }

    /// Fires node `id`'s election timer (whatever its random value).
    pub fn expire_election_timer(&mut self, id: NodeId) {
        let (deadline, _) = self.replica(id).state_timer().expect("an election timer is set");
        let now = self.now.max(deadline);
        self.now = now;
        self.with(id, |r, ctx| r.poll(ctx));
    }

    pub fn take_transcript(&mut self) -> Vec<String> {
        std::mem::take(&mut self.transcript)
    }

    /// Elects `id` from a cold start: its timer fires, pre-vote, vote, first fetches.
    pub fn elect(&mut self, id: NodeId) {
        self.expire_election_timer(id);
        self.deliver_all();
        assert_eq!(self.state(id), "leader", "n{id} should have won");
    }

    pub fn transitions(&self, id: NodeId) -> Vec<String> {
        self.notes
            .iter()
            .filter(|(n, _)| *n == id)
            .filter_map(|(_, note)| match note {
                Note::StateChanged { to, epoch, reason, .. } => {
                    Some(format!("{} e{} ({})", to.name(), epoch, reason.name()))
                }
                _ => None,
            })
            .collect()
    }
}
