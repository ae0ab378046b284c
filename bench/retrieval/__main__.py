from bench.retrieval.evaluate import main

main()
