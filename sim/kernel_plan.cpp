#include "sim/kernel_plan.h"

namespace simt::sim {

KernelPlan plan_kernel(const ir::Module &module, const SimOptions &options) {
  KernelPlan plan;
  plan.fission = ir::plan_fission(module);
  const ir::Properties &props = module.props;
  const bool waits = props.uses_barrier || props.uses_warp || props.may_spin;
  // The debugger stops threads anywhere; a schedule orders threads that run on fibers.
  const bool every_thread_observed = module.options.instrumentation == Instrumentation::Debug ||
                                     (module.options.instrumentation == Instrumentation::Check &&
                                      options.checked_fibers == CheckedFibers::All);
  // A fissioned barrier reports its release only, not which threads reached it.
  const bool arrivals_observed = module.options.instrumentation == Instrumentation::Check &&
                                 props.uses_barrier && plan.fission.threads_return;
  if (every_thread_observed || arrivals_observed || (waits && !options.fission) ||
      !plan.fission.fissionable())
    plan.strategy = BlockStrategy::Fibers;
  else
    plan.strategy = waits ? BlockStrategy::Fission : BlockStrategy::Flat;
  return plan;
}

} // namespace simt::sim
