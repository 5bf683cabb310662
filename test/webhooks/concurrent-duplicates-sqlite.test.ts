// Concurrent duplicates on one instance and its SQLite, on both networks (concurrent-duplicates-support.ts says what
// each race must show): relay402 bodies (/settle, /swap/settle), x402 bodies (EIP-3009 on base, Permit2 on bsc),
// with and without a payment identifier. One transaction each, named by the final answer, one payment.settled.
import { describe, test } from "bun:test";
import { NETWORK_NAMES } from "../support/chain";
import { executorsOf, RACES, type Racers } from "./concurrent-duplicates-support";
import { eventTestbed, slowServiceWithWebhooks } from "./events-support";

const { services, receiver, webhooks, service } = eventTestbed();
/** Gives up its receipt wait after 1.5 s: a settle on stopped blocks answers 202 that soon. */
const slow = slowServiceWithWebhooks(services, webhooks);

for (const network of NETWORK_NAMES) {
  // Two callers' worth of requests at once on the one instance: the single flight and the claim both get raced.
  const racers: Racers = {
    posts: [service.post, service.post],
    executors: executorsOf(service.config.networks[network]?.executorKeys ?? []),
    receiver,
  };

  // A settle on stopped blocks has to answer 202 soon: the slow instance's.
  const stalledRacers: Racers = {
    ...racers,
    posts: [slow.post, slow.post],
    executors: executorsOf(slow.config.networks[network]?.executorKeys ?? []),
  };

  describe(`${network}: concurrent duplicates on SQLite`, () => {
    for (const { name, race, stalled } of RACES)
      test(name, () => race(stalled ? stalledRacers : racers, network), 30_000);
  });
}
