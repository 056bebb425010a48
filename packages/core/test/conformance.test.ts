// Every resource of @rmmjs/core through the shared conformance suite (RMM's mr_ref_test).
import { coreResources, describeConformance } from '@rmmjs/test-helpers';

for (const { name, make, ...options } of coreResources()) describeConformance(name, make, options);
