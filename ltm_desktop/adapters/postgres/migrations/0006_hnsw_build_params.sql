-- Rebuild the chunk vectors' HNSW index with a denser graph: m = 32, ef_construction = 128 (pgvector's defaults: 16, 64).
-- Why: on 1M synthetic chunks the default graph reached recall@10 0.91 against exact search even at the highest
-- ef_search pgvector allows (1000), short of the 0.95 target; the denser graph gives 0.997 at ef_search 200 on 100k
-- chunks (0.945 before) and 1.0 at 100 on 10k (bench/bench_search.py, docs/benchmarks.md). Costs: a build 3-5x
-- slower on 2 cores (1M chunks: ~18 min) and a larger index (2.0 GB at 1M chunks, for 1.5 GB of vectors).
-- The table only exists once an embedding model is pinned; a store without it gets the index from
-- model_pin.create_embeddings_table, which must use the same parameters.
-- The graph must fit in maintenance_work_mem or the build slows many times over (~2 kB per chunk at m = 32):
-- 1GB covers ~500k chunks without asking a desktop for more.
SET LOCAL maintenance_work_mem = '1GB';
DO $$
BEGIN
    IF to_regclass('public.chunk_embeddings') IS NOT NULL THEN
        DROP INDEX IF EXISTS chunk_embeddings_hnsw;
        CREATE INDEX chunk_embeddings_hnsw ON chunk_embeddings USING hnsw (embedding vector_cosine_ops)
            WITH (m = 32, ef_construction = 128);
    END IF;
END
$$;
