// biaffine_mst.jsonnet (Dozat & Manning with MST decoding) over the frozen all-mpnet-base-v2 features of
// coach_valid_mpnet.jsonnet (mpnet.libsonnet), so that the recurrent parser and the baseline compare with the
// same encoder and features.
(import 'mpnet.libsonnet')(import 'biaffine_mst.jsonnet')
