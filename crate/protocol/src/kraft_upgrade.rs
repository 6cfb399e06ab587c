//! Upgrading kraft.version from 0 to 1 at the leader (Kafka 4.1+, KAFKA-16538): a static
//! quorum becomes a dynamic one. The leader of a kraft.version 0 quorum keeps the static
//! voters in memory with its own entry, and fills in every other voter's directory id,
//! listeners and supported versions from the UpdateRaftVoter each sends it
//! (`update_voter`); the upgrade writes that set with the new version. What asks for it
//! (Kafka's feature update, `kafka-features.sh upgrade`, `upgrade --release-version`) is
//! the world's to call; here is the entry point it calls.

use super::io::{Ctx, Wake};
use super::leader::KRaftVersionUpgrade;
use super::record::{Epoch, RecordBody};
use super::replica::Replica;
use super::voters::{KRaftVersion, VoterSet};

impl Replica {
    /// KafkaRaftClient.upgradeKRaftVersion and LeaderState.maybeAppendUpgradedKRaftVersion:
    /// upgrades kraft.version to `version` from the leader of `epoch`. `Ok(true)`: the upgrade
    /// is accepted and (unless `validate_only`) its one control batch appended, a
    /// KRaftVersionRecord and, when the voters kept in memory differ from the log's, a
    /// VotersRecord with them; from then on the replica, and each follower that reads the
    /// batch, is at the new version (read uncommitted, as every control record is).
    /// `Ok(false)`: nothing to do (the version is already finalized, or already asked for).
    /// `Err`: refused, in the words of the exception Kafka throws. There is no downgrade.
    pub fn upgrade_kraft_version(
        &mut self,
        ctx: &mut Ctx,
        epoch: Epoch,
        version: KRaftVersion,
        validate_only: bool,
    ) -> (Result<bool, String>, Wake) {
        let done = self.maybe_append_upgraded_kraft_version(ctx, epoch, version, validate_only);
        (done, Wake(self.next_deadline(ctx.now)))
    }

    fn maybe_append_upgraded_kraft_version(
        &mut self,
        ctx: &mut Ctx,
        epoch: Epoch,
        version: KRaftVersion,
        validate_only: bool,
    ) -> Result<bool, String> {
        let release = self.config.release;
        if !release.kafka_16538() {
            return Err(format!(
                "kraft.version cannot be upgraded in this run: Kafka 4.1 added the upgrade (KAFKA-16538), and the run \
                 models {}",
                if release == super::config::KafkaRelease::Legacy {
                    "the legacy playground".to_string()
                } else {
                    format!("Kafka {}", release.name())
                }
            ));
        }
        let (id, state) = (self.id, self.state.name().name());
        let persisted_version = self.kraft_version();
        let persisted_voters = self.voters().clone();
        let Some(l) = self.state.as_leader() else {
            return Err(format!(
                "the kraft.version upgrade failed because node {id} is {state}, not the leader (NotLeaderException)"
            ));
        };
        // LeaderState.validateEpoch.
        if epoch < l.epoch {
            return Err(format!(
                "the kraft.version upgrade failed because epoch {epoch} is stale: node {id} leads epoch {} \
                 (NotLeaderException)",
                l.epoch
            ));
        }
        if epoch > l.epoch {
            return Err(format!(
                "the kraft.version upgrade asked for epoch {epoch}, newer than node {id}'s epoch {} \
                 (IllegalArgumentException)",
                l.epoch
            ));
        }
        let in_memory = match &l.kraft_version_upgrade {
            KRaftVersionUpgrade::Version(pending) if *pending == version => return Ok(false),
            KRaftVersionUpgrade::Version(pending) => {
                return Err(format!(
                    "kraft.version cannot go to {} while an upgrade to {} is under way (InvalidUpdateVersionException)",
                    version.0, pending.0
                ))
            }
            _ if persisted_version == version => return Ok(false),
            _ if persisted_version > version => {
                return Err(format!(
                    "kraft.version cannot go from {} down to {}: it is only ever upgraded \
                     (InvalidUpdateVersionException)",
                    persisted_version.0, version.0
                ))
            }
            KRaftVersionUpgrade::Voters(v) => v.clone(),
            KRaftVersionUpgrade::Empty => {
                return Err(format!(
                    "kraft.version has no upgrade from {} to {} (InvalidUpdateVersionException)",
                    persisted_version.0, version.0
                ))
            }
        };
        let ids = |v: &VoterSet| v.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(", ");
        if !in_memory.iter().eq(persisted_voters.iter()) {
            return Err(format!(
                "the voters kept in memory ({}) are not the log's ({}) (IllegalStateException)",
                ids(&in_memory),
                ids(&persisted_voters)
            ));
        }
        let unsupported: Vec<String> =
            in_memory.nodes().iter().filter(|n| !n.supported.contains(version)).map(|n| n.id.to_string()).collect();
        if !unsupported.is_empty() {
            return Err(format!(
                "kraft.version cannot be upgraded to {} because not every voter supports it: voters {} have not told \
                 this leader they do (UpdateRaftVoter) (InvalidUpdateVersionException)",
                version.0,
                unsupported.join(", ")
            ));
        }
        let unknown: Vec<String> =
            in_memory.nodes().iter().filter(|n| n.directory.is_none()).map(|n| n.id.to_string()).collect();
        if !unknown.is_empty() {
            return Err(format!(
                "the directory id of voters {} is not known yet, and every voter needs one \
                 (IllegalStateException)",
                unknown.join(", ")
            ));
        }
        if validate_only {
            return Ok(true);
        }
        let mut batch = vec![RecordBody::KRaftVersion { version }];
        if in_memory != persisted_voters {
            batch.push(RecordBody::Voters { voters: in_memory });
        }
        if let Some(l) = self.state.as_leader_mut() {
            l.kraft_version_upgrade = KRaftVersionUpgrade::Version(version);
        }
        self.append_control_batch(ctx, batch);
        Ok(true)
    }
}
