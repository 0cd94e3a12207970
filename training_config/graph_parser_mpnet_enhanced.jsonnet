// graph_parser_enhanced.jsonnet (allennlp-models' graph_parser on the enhanced UD graph) over the frozen
// all-mpnet-base-v2 features of coach_valid_mpnet_enhanced.jsonnet (mpnet.libsonnet): the one-step baseline
// with the same encoder and features as the sequential graph parser.
(import 'mpnet.libsonnet')(import 'graph_parser_enhanced.jsonnet')
