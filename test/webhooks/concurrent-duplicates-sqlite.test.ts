// Concurrent duplicates on one instance and its SQLite, on both networks (concurrent-duplicates-support.ts says what
// each race must show): relay402 bodies (/settle, /swap/settle), x402 bodies (EIP-3009 on base, Permit2 on bsc),
// with and without a payment identifier. One transaction each, named by the final answer, one payment.settled.
import { afterAll, describe, test } from "bun:test";
import { NETWORK_NAMES } from "../support/chain";
import { trackServices } from "../support/service";
import {
  executorsOf,
  type Racers,
  raceRelay402Payment,
  raceRelay402Swap,
  raceStalledRelay402Payment,
  raceX402Payment,
} from "./concurrent-duplicates-support";
import { receiverWithEndpoint, serviceWithWebhooks } from "./events-support";

const services = trackServices();
const { receiver, webhooks } = receiverWithEndpoint();
afterAll(() => {
  services.stopAll();
  receiver.stop();
});
const service = serviceWithWebhooks(services, webhooks);
/** Gives up its receipt wait after 1.5 s: a settle on stopped blocks answers 202 that soon. */
const slow = serviceWithWebhooks(services, webhooks, {
  configure: (config) => {
    for (const network of NETWORK_NAMES) {
      const settings = config.networks[network];
      if (settings) Object.assign(settings, { receiptTimeoutMs: 1_500, replaceAfterMs: 60_000 });
    }
  },
});

for (const network of NETWORK_NAMES) {
  // Two callers' worth of requests at once on the one instance: the single flight and the claim both get raced.
  const racers: Racers = {
    posts: [service.post, service.post],
    executors: executorsOf(service.config.networks[network]?.executorKeys ?? []),
    receiver,
  };

  describe(`${network}: concurrent duplicates on SQLite`, () => {
    test(
      "a relay402 payment body: 200 or 202, never a 5xx; one transaction; one payment.settled",
      () => raceRelay402Payment(racers, network),
      30_000,
    );

    test(
      "a relay402 payment body on stopped blocks: 202 everywhere, then one payment.settled with no retry; one transaction",
      () =>
        raceStalledRelay402Payment(
          {
            ...racers,
            posts: [slow.post, slow.post],
            executors: executorsOf(slow.config.networks[network]?.executorKeys ?? []),
          },
          network,
        ),
      30_000,
    );

    test(
      "a relay402 swap body: 200 or 202, never a 5xx; one transaction; one payment.settled",
      () => raceRelay402Swap(racers, network),
      30_000,
    );

    test(
      "an x402 body: one success, the others invalid_exact_evm_nonce_already_used; one transaction; one payment.settled",
      () => raceX402Payment(racers, network),
      30_000,
    );

    test(
      "an x402 body under a payment identifier: the first result everywhere; one transaction; one payment.settled",
      () => raceX402Payment(racers, network, { identified: true }),
      30_000,
    );
  });
}
