//! A hand-driven cluster for the replica's reconfiguration tests, in the style of Kafka's
//! RaftClientTestContext: replicas exchange messages only when the test delivers them,
//! flushes finish at once, and an admin client (`ADMIN`) sends AddRaftVoter and
//! RemoveRaftVoter and collects the answers.

#![allow(dead_code)]

use kraft_base::rng::Rng;
use kraft_base::shared::Meter;
use kraft_protocol::log::ReplicaLog;
use kraft_protocol::rpc::{AddRaftVoterRequest, Envelope, Message, RemoveRaftVoterRequest, RpcKind};
use kraft_protocol::state::ElectionState;
use kraft_protocol::voters::{Endpoints, KRaftVersionRange, VoterNode};
use kraft_protocol::{
    Ctx, DirectoryId, Durable, IdSource, NodeId, Note, Output, QuorumConfig, Reason, Replica, ReplicaKey, ReplicaSetup,
    StateName, Unsafe, VoterSet,
};
use std::collections::{BTreeMap, VecDeque};

/// The node id of the admin client (kafka-metadata-quorum.sh).
pub const ADMIN: NodeId = 99;

/// The directory id node `id` was formatted with (`generation` 0), or after its disk was
/// wiped and formatted again.
pub fn dir(id: NodeId, generation: u64) -> DirectoryId {
    DirectoryId::new(1000 + 100 * generation + id as u64).unwrap()
}

/// Node `id` on its first disk.
pub fn key(id: NodeId) -> ReplicaKey {
    ReplicaKey::new(id, Some(dir(id, 0)))
}

pub fn voter_node(id: NodeId) -> VoterNode {
    VoterNode::new(key(id), Endpoints::of_node(id), KRaftVersionRange::SUPPORTED)
}

pub struct Cluster {
    pub now: u64,
    pub replicas: BTreeMap<NodeId, Replica>,
    pub queue: VecDeque<Envelope>,
    pub notes: Vec<(NodeId, Note)>,
    /// What reached the admin client, in order.
    pub answers: Vec<Message>,
    /// Every message sent: (from, to, kind).
    pub sent: Vec<(NodeId, NodeId, RpcKind)>,
    /// Messages of these kinds from these nodes are held back on the way...
    pub hold: Vec<(NodeId, RpcKind)>,
    /// ...here, until `release`.
    pub held: Vec<Envelope>,
    /// Links that drop everything (from, to).
    pub cut: Vec<(NodeId, NodeId)>,
    pub config: QuorumConfig,
    /// The safety switches every replica started from now on has off (unsafe).
    pub switches: Unsafe,
    /// `controller.quorum.voters` (static) or the bootstrap servers (dynamic).
    bootstrap: Vec<NodeId>,
    rng: Rng,
    ids: IdSource,
    next_correlation: u64,
}

impl Cluster {
    fn empty(bootstrap: Vec<NodeId>) -> Cluster {
        Cluster::empty_with(bootstrap, QuorumConfig::default())
    }

    fn empty_with(bootstrap: Vec<NodeId>, config: QuorumConfig) -> Cluster {
        Cluster {
            now: 0,
            replicas: BTreeMap::new(),
            queue: VecDeque::new(),
            notes: Vec::new(),
            answers: Vec::new(),
            sent: Vec::new(),
            hold: Vec::new(),
            held: Vec::new(),
            cut: Vec::new(),
            config,
            switches: Unsafe::default(),
            bootstrap,
            rng: Rng::new(7),
            ids: IdSource::default(),
            next_correlation: 1000,
        }
    }

    /// A dynamic quorum (kraft.version 1): `voters` formatted with
    /// `--initial-controllers`, `observers` with `--no-initial-controllers`, every one with
    /// its own directory id; the voters are the bootstrap servers. Startup's bootstrap
    /// fetches are dropped, so a test starts from silence.
    pub fn dynamic(voters: &[NodeId], observers: &[NodeId]) -> Cluster {
        Cluster::dynamic_with(QuorumConfig::default(), voters, observers)
    }

    /// `dynamic`, every replica with `config`.
    pub fn dynamic_with(config: QuorumConfig, voters: &[NodeId], observers: &[NodeId]) -> Cluster {
        let initial = VoterSet::from_nodes(voters.iter().map(|&v| voter_node(v)));
        Cluster::formatted_with(config, voters, observers, initial)
    }

    /// A dynamic quorum whose voters were formatted with `initial` (`--initial-controllers`).
    pub fn formatted_with(config: QuorumConfig, voters: &[NodeId], observers: &[NodeId], initial: VoterSet) -> Cluster {
        Cluster::formatted_unsafe(config, Unsafe::default(), voters, observers, initial)
    }

    /// `dynamic`, every replica with the safety rules of `switches` off (unsafe).
    pub fn dynamic_unsafe(switches: Unsafe, voters: &[NodeId], observers: &[NodeId]) -> Cluster {
        let initial = VoterSet::from_nodes(voters.iter().map(|&v| voter_node(v)));
        Cluster::formatted_unsafe(QuorumConfig::default(), switches, voters, observers, initial)
    }

    fn formatted_unsafe(
        config: QuorumConfig,
        switches: Unsafe,
        voters: &[NodeId],
        observers: &[NodeId],
        initial: VoterSet,
    ) -> Cluster {
        let mut c = Cluster::empty_with(voters.to_vec(), config);
        c.switches = switches;
        for &id in voters {
            c.start(id, ReplicaLog::format(&Meter::default(), dir(id, 0), Some(initial.clone())));
        }
        for &id in observers {
            c.start(id, ReplicaLog::format(&Meter::default(), dir(id, 0), None));
        }
        c.queue.clear();
        c
    }

    /// A static quorum (controller.quorum.voters, kraft.version 0) of `voters`, and
    /// `observers`; disks with directory ids.
    pub fn static_quorum(voters: &[NodeId], observers: &[NodeId]) -> Cluster {
        Cluster::static_quorum_with(QuorumConfig::default(), voters, observers)
    }

    /// `static_quorum`, every replica with `config`.
    pub fn static_quorum_with(config: QuorumConfig, voters: &[NodeId], observers: &[NodeId]) -> Cluster {
        let mut c = Cluster::empty_with(voters.to_vec(), config);
        for &id in voters.iter().chain(observers) {
            c.start(id, ReplicaLog::format(&Meter::default(), dir(id, 0), None));
        }
        c.queue.clear();
        c
    }

    /// Starts (or restarts) `id` from `log`. The first bootstrap server has Kafka's
    /// election timeout; the others one long enough never to fire unless a test says so.
    pub fn start(&mut self, id: NodeId, log: ReplicaLog) {
        let mut config = self.config.clone();
        if Some(&id) != self.bootstrap.first() {
            config.election_timeout_ms = 60_000;
        }
        let setup = ReplicaSetup {
            id,
            bootstrap_only: false,
            voters: self.bootstrap.clone(),
            config,
            switches: self.switches,
            snapshot_interval: 0,
        };
        let durable = Durable { election: ElectionState::default(), log };
        let mut out = Vec::new();
        let (r, _wake) = {
            let mut ctx = Ctx { now: self.now, rng: &mut self.rng, ids: &mut self.ids, out: &mut out };
            Replica::start(&mut ctx, setup, durable, Reason::Startup)
        };
        self.replicas.insert(id, r);
        self.route(id, out);
    }

    pub fn replica(&self, id: NodeId) -> &Replica {
        &self.replicas[&id]
    }

    pub fn state(&self, id: NodeId) -> StateName {
        self.replica(id).state_name()
    }

    fn route(&mut self, id: NodeId, out: Vec<Output>) {
        for o in out {
            match o {
                Output::Send(env) => {
                    self.sent.push((env.from, env.to, env.message.kind()));
                    if env.to == ADMIN {
                        self.answers.push(env.message); // the admin client is not on the simulated network
                    } else {
                        self.queue.push_back(env);
                    }
                }
                Output::Flush { up_to } => {
                    let _wake = self.replicas.get_mut(&id).unwrap().flushed(self.now, up_to);
                }
                Output::Note(n) => self.notes.push((id, n)),
            }
        }
    }

    /// Runs one input at `id`, routes its outputs, and polls it while it has work due now.
    pub fn with<T>(&mut self, id: NodeId, f: impl FnOnce(&mut Replica, &mut Ctx) -> T) -> T {
        let mut out = Vec::new();
        let value = {
            let r = self.replicas.get_mut(&id).expect("node exists");
            let mut ctx = Ctx { now: self.now, rng: &mut self.rng, ids: &mut self.ids, out: &mut out };
            f(r, &mut ctx)
        };
        self.route(id, out);
        let now = self.now;
        while self.replicas[&id].next_deadline(now).is_some_and(|d| d <= now) {
            let mut out = Vec::new();
            let r = self.replicas.get_mut(&id).unwrap();
            let mut ctx = Ctx { now, rng: &mut self.rng, ids: &mut self.ids, out: &mut out };
            r.poll(&mut ctx);
            self.route(id, out);
        }
        value
    }

    /// Delivers queued messages in order until none are left, or 2,000 of them (leaderless
    /// replicas ping-pong Fetches at network speed, and no time passes here).
    pub fn deliver_all(&mut self) {
        for _ in 0..2_000 {
            let Some(env) = self.queue.pop_front() else { return };
            if self.cut.contains(&(env.from, env.to)) {
                continue;
            }
            if self.hold.contains(&(env.from, env.message.kind())) {
                self.held.push(env);
                continue;
            }
            if self.replicas.contains_key(&env.to) {
                let to = env.to;
                self.with(to, |r, ctx| r.handle(ctx, env));
            }
        }
    }

    /// Stops holding messages back and delivers the held ones.
    pub fn release(&mut self) {
        self.hold.clear();
        self.queue.extend(self.held.drain(..));
        self.deliver_all();
    }

    /// Hands `message` from `from` to `to` at once and returns `to`'s answer, taken off
    /// the queue (everything else `to` sent stays queued).
    pub fn request(&mut self, from: NodeId, to: NodeId, message: Message) -> Message {
        self.next_correlation += 1;
        let correlation = self.next_correlation;
        self.with(to, |r, ctx| r.handle(ctx, Envelope { from, to, correlation, message }));
        let answer = self.queue.iter().position(|e| e.from == to && e.to == from && e.correlation == correlation);
        self.queue.remove(answer.expect("an answer")).unwrap().message
    }

    /// Moves time forward and polls every replica.
    pub fn tick(&mut self, ms: u64) {
        self.now += ms;
        let ids: Vec<NodeId> = self.replicas.keys().copied().collect();
        for id in ids {
            self.with(id, |r, ctx| r.poll(ctx));
        }
    }

    /// `rounds` times: 10 ms pass, then every queued message is delivered.
    pub fn settle(&mut self, rounds: usize) {
        for _ in 0..rounds {
            self.tick(10);
            self.deliver_all();
        }
    }

    /// Fires `id`'s state timer (election or fetch timeout), whatever its random value.
    pub fn expire_timer(&mut self, id: NodeId) {
        let (deadline, _) = self.replica(id).state_timer().expect("a timer is set");
        self.now = self.now.max(deadline);
        self.with(id, |r, ctx| r.poll(ctx));
    }

    /// Elects `id` from a cold start: its timer fires, pre-vote, vote, first fetches.
    pub fn elect(&mut self, id: NodeId) {
        self.expire_timer(id);
        self.deliver_all();
        assert_eq!(self.state(id), StateName::Leader, "n{id} should have won");
    }

    /// Sends `message` from the admin client to `to` and delivers everything that follows.
    pub fn admin(&mut self, to: NodeId, message: Message) {
        self.next_correlation += 1;
        self.queue.push_back(Envelope { from: ADMIN, to, correlation: self.next_correlation, message });
        self.deliver_all();
    }

    pub fn add_voter(&mut self, to: NodeId, voter: ReplicaKey) {
        let listeners = Endpoints::of_node(voter.id);
        self.admin(to, Message::AddRaftVoter(AddRaftVoterRequest { voter, listeners, ack_when_committed: true }));
    }

    pub fn remove_voter(&mut self, to: NodeId, voter: ReplicaKey) {
        self.admin(to, Message::RemoveRaftVoter(RemoveRaftVoterRequest { voter }));
    }

    /// Runs `f` on `id` (as `with`) and returns the outputs it made, in order.
    pub fn outputs(&mut self, id: NodeId, f: impl FnOnce(&mut Replica, &mut Ctx)) -> Vec<Output> {
        self.with(id, |r, ctx| {
            f(r, ctx);
            ctx.out.clone()
        })
    }

    /// Every message `from` sent `to` of `kind`, counted.
    pub fn count_sent(&self, from: NodeId, to: NodeId, kind: RpcKind) -> usize {
        self.sent.iter().filter(|s| **s == (from, to, kind)).count()
    }

    /// The error codes the admin client got, by name, oldest first; forgets them.
    pub fn take_answers(&mut self) -> Vec<&'static str> {
        std::mem::take(&mut self.answers)
            .into_iter()
            .map(|m| match m {
                Message::AddRaftVoterResponse(r) | Message::RemoveRaftVoterResponse(r) => r.error.name(),
                other => panic!("the admin client got {other:?}"),
            })
            .collect()
    }

    /// The ids of `id`'s voter set in force.
    pub fn voters(&self, id: NodeId) -> Vec<NodeId> {
        self.replica(id).voters().iter().collect()
    }

    /// The record kinds of `id`'s log from `from` on.
    pub fn record_kinds(&self, id: NodeId, from: u64) -> Vec<&'static str> {
        self.replica(id).log().records().filter(|r| r.offset >= from).map(|r| r.body.kind()).collect()
    }

    /// The transitions `id` noted: (to, reason).
    pub fn transitions(&self, id: NodeId) -> Vec<(StateName, Reason)> {
        self.notes
            .iter()
            .filter_map(|(n, note)| match note {
                Note::StateChanged { to, reason, .. } if *n == id => Some((*to, *reason)),
                _ => None,
            })
            .collect()
    }
}
