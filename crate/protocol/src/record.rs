//! KRaft's log records: its control records, and the records clients write
//! (`kraft_boundary::record`, whose metadata image every node applies them to below its
//! HW).

use super::voters::{Endpoint, KRaftVersion, VoterNode, VoterSet};
use serde::Serialize;

pub use super::ids::{Epoch, NodeId, Offset};
pub use kraft_boundary::record::{
    Applied, ClientRecord, MetadataImage, TopicImage, TopicName, PARTITIONS, RECORD_BYTES,
};

/// What a record says. The first three are KRaft's control records: `LeaderChange` opens
/// every epoch; `KRaftVersion` and `Voters` (Kafka's KRaftVersionRecord and VotersRecord,
/// KIP-853) set the kraft.version and the voter set. The rest are metadata records a
/// controller would write.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "type")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum RecordBody {
    /// LeaderChangeMessage: the new leader, the voters it leads and those that elected it.
    LeaderChange {
        leader: NodeId,
        #[serde(flatten)]
        voters: Box<LeaderChangeVoters>,
    },
    KRaftVersion {
        #[serde(rename = "kRaftVersion")]
        version: KRaftVersion,
    },
    Voters {
        voters: VoterSet,
    },
    /// A client's record, in its JSON form as a record of its own.
    #[serde(untagged)]
    Client(#[cfg_attr(feature = "ts", ts(inline))] ClientRecord),
}

/// LeaderChangeMessage's two lists. Boxed in the record: inline they would make every
/// record of every log 24 bytes larger.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LeaderChangeVoters {
    pub voters: Vec<NodeId>,
    #[serde(rename = "grantingVoters")]
    pub granting_voters: Vec<NodeId>,
}

impl RecordBody {
    pub fn leader_change(leader: NodeId, voters: Vec<NodeId>, granting_voters: Vec<NodeId>) -> RecordBody {
        RecordBody::LeaderChange { leader, voters: Box::new(LeaderChangeVoters { voters, granting_voters }) }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            RecordBody::LeaderChange { .. } => "LeaderChange",
            RecordBody::KRaftVersion { .. } => "KRaftVersion",
            RecordBody::Voters { .. } => "Voters",
            RecordBody::Client(c) => c.kind(),
        }
    }

    /// Checks a user-supplied record; errors say what is wrong.
    pub fn validate(&self) -> Result<(), String> {
        match self {
            RecordBody::LeaderChange { .. } => Err("LeaderChange is a control record only a new leader writes".into()),
            RecordBody::KRaftVersion { .. } | RecordBody::Voters { .. } => {
                Err(format!("{} is a control record only the leader writes", self.kind()))
            }
            RecordBody::Client(c) => c.validate(),
        }
    }
}

/// One entry of the replicated log. `id` is unique across a simulation, so two records
/// that look alike but were written separately are told apart by the checker.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Record {
    pub offset: Offset,
    pub epoch: Epoch,
    pub id: u64,
    pub body: RecordBody,
}

/// Bytes of a record's framing in Kafka's v2 format (length, attributes, timestamp and
/// offset deltas, key and value lengths, header count: one varint each).
const RECORD_FRAMING_BYTES: u64 = 8;

impl Record {
    /// An estimate of the record's serialized size, which the byte limits of Fetch
    /// responses count (`controller.quorum.fetch.max.bytes`). The bodies are sized after
    /// the metadata records they stand for (ids 4 bytes, epochs 8, topic ids 16).
    #[inline]
    pub fn size_bytes(&self) -> u64 {
        let body = match &self.body {
            // LeaderChangeMessage: version, leader id, voters and granting voters arrays (a
            // voter's id in both: the granting voters are nearly always all of them).
            RecordBody::LeaderChange { voters, .. } => 12 + 8 * voters.voters.len() as u64,
            // KRaftVersionRecord: version and level.
            RecordBody::KRaftVersion { .. } => 4,
            // VotersRecord: per voter its id, directory id (a Uuid), endpoints and versions.
            RecordBody::Voters { voters } => {
                let endpoint = |e: &Endpoint| 8 + e.listener.len() as u64 + e.host.len() as u64;
                let voter = |n: &VoterNode| 24 + n.endpoints.0.iter().map(endpoint).sum::<u64>();
                4 + voters.nodes().iter().map(voter).sum::<u64>()
            }
            RecordBody::Client(c) => c.size_bytes(),
        };
        RECORD_FRAMING_BYTES + body
    }

    /// Applies this record, the next one, to `image`.
    pub fn apply_to(&self, image: &mut MetadataImage) {
        let applied = match &self.body {
            RecordBody::LeaderChange { .. } => Applied::LeaderChange,
            // The voter set lives in the raft layer's own history (voter_history), not in the
            // metadata image the controllers build.
            RecordBody::KRaftVersion { .. } | RecordBody::Voters { .. } => Applied::Control,
            RecordBody::Client(c) => Applied::Client(c),
        };
        image.apply(self.offset, applied);
    }
}
