package parreg.admin;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.receptionist.Receptionist;

/**
 * Every participant's status, gathered by one node ({@code GET /cluster/status}, {@code parreg
 * status --cluster}): the node finds the admin actors of all members through the receptionist
 * ({@link AdminActor#SERVICE_KEY}) and asks each over the cluster's own transport (Artery, TLS
 * where the cluster uses it) for its status as JSON, its own included.
 *
 * <p>Why over Artery and not each node's HTTP endpoint: that endpoint binds to loopback unless an
 * operator opens it, so from one node the others' endpoints are usually out of reach, while their
 * actors are reachable by construction.
 */
public final class ClusterStatus {
  private ClusterStatus() {}

  /**
   * {@code {"node": address of the gathering node, "participants": [status, ...] by participant,
   * "unanswered": [{"address", "error"}, ...]}}; a node that does not answer within {@code timeout}
   * is listed as unanswered, not left out.
   */
  public static Map<String, Object> gather(ActorSystem<?> system, Duration timeout)
      throws Exception {
    Receptionist.Listing listing =
        AskPattern.<Receptionist.Command, Receptionist.Listing>ask(
                system.receptionist(),
                r -> Receptionist.find(AdminActor.SERVICE_KEY, r),
                timeout,
                system.scheduler())
            .toCompletableFuture()
            .get(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
    List<ActorRef<AdminActor.Command>> admins =
        new ArrayList<>(listing.getServiceInstances(AdminActor.SERVICE_KEY));
    List<CompletableFuture<AdminActor.StatusJson>> asks = new ArrayList<>();
    for (ActorRef<AdminActor.Command> a : admins) {
      asks.add(
          AskPattern.<AdminActor.Command, AdminActor.StatusJson>ask(
                  a, AdminActor.GetStatusJson::new, timeout, system.scheduler())
              .toCompletableFuture());
    }
    List<JsonNode> participants = new ArrayList<>();
    List<Map<String, String>> unanswered = new ArrayList<>();
    for (int i = 0; i < admins.size(); i++) {
      String address =
          admins.get(i).path().address().hasGlobalScope()
              ? admins.get(i).path().address().toString()
              : system.address().toString();
      try {
        participants.add(
            AdminHttpServer.JSON.readTree(
                asks.get(i).get(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS).json()));
      } catch (Exception e) {
        Throwable c = e.getCause() != null ? e.getCause() : e;
        unanswered.add(Map.of("address", address, "error", c.getClass().getSimpleName()));
      }
    }
    participants.sort(Comparator.comparingInt(n -> n.path("participant").asInt()));
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("node", system.address().toString());
    out.put("participants", participants);
    out.put("unanswered", unanswered);
    return out;
  }
}
