/**
 * Setup of every console component test. Testing Library's `findBy…`/`waitFor` wait 1 s by default; a page that
 * renders after two fetches and a route change can take longer than that on a loaded 2-core machine (seen: the
 * agents test failing 2 of 7 runs while other suites ran). What they wait for is the same; only how long they
 * may wait is raised, below the test's own 15 s timeout.
 */
import { configure } from "@testing-library/react";

configure({ asyncUtilTimeout: 5_000 });
