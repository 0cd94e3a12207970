// coach_valid_mpnet generating the enhanced UD graph (DEPS) as well as the basic tree: the sequential graph
// parser over frozen all-mpnet-base-v2 features (training_config/mpnet.libsonnet; `make english` fetches the
// model), with the graph phase of coach_valid_enhanced.jsonnet. Model selection on validation ELAS.
local common = import 'common.libsonnet';

(import 'coach_valid_mpnet.jsonnet') + common.enhanced_graph
