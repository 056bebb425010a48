// @rmmjs/test-addon: native code for tests and benchmarks, never shipped in a published package.
#include "rmmjs/addon.hpp"
#include "methods.h"

namespace test_addon = rmmjs::test_addon;

RMMJS_ADDON(rmmjs_test_addon, {"driverPairNs", test_addon::DriverPairNs},
            {"driverPoolPairNs", test_addon::DriverPoolPairNs}, {"abiPairNs", test_addon::AbiPairNs},
            {"abiThreadsOpsPerSecond", test_addon::AbiThreadsOpsPerSecond}, {"abiRandomNs", test_addon::AbiRandomNs},
            {"nativeThreadsWorkload", test_addon::NativeThreadsWorkload},
            {"allocateOnNativeThread", test_addon::AllocateOnNativeThread},
            {"allocateOnThreadPool", test_addon::AllocateOnThreadPool}, {"forgeCoreApi", test_addon::ForgeCoreApi},
            {"pointerTableProbes", test_addon::PointerTableProbes}, {"biasedLockRun", test_addon::BiasedLockRun},
            {"napiFloor", test_addon::NapiFloor}, {"bestFitIndexCheck", test_addon::BestFitIndexCheck},
            {"hostOomStep", test_addon::HostOomStep}, {"pcSamplerStart", test_addon::PcSamplerStart},
            {"pcSamplerStop", test_addon::PcSamplerStop}, {"streamQuery", test_addon::StreamQuery},
            {"poolThreadCaches", test_addon::PoolThreadCaches}, {"exitHeld", test_addon::ExitHeld},
            {"createCountingAdaptor", test_addon::CreateCountingAdaptor}, {"countedBytes", test_addon::CountedBytes},
            {"spareListCheck", test_addon::SpareListCheck})
