"""
The parts of the parser service, `python -m seqgraph_allennlp.serve` (whose module says what the service
answers, and is its command line), each one idea:

* `messages`: what goes in and out: a request's input read from its body (`ParseInput`), the format of its
  answer, and the error a request is refused with (`ServiceError`);
* `worker`: the model's side: requests queued and parsed in batches, in the one thread that loaded the model
  (`ParserWorker`);
* `app`: the HTTP side: the Starlette app and its routes around the worker (`ParserService`);
* `page`: the page at `GET /`.

The package (`import seqgraph_allennlp`) imports none of them: only the service pays for the web stack.
"""
