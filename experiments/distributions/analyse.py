from common import OUT, case_classes, compare, write_result

partitions = {}
for i, kind in enumerate(("uniform01", "uniform11", "normal")):
    for case in compare(f"{OUT}/inputs{i}.db")["cases"]:
        init = case["model"].split("_")[-1]
        partitions[(init, kind)] = case_classes(case)
distinct = set(partitions.values())
counts = {f"{k[0]}/{k[1]}": len(v) for k, v in sorted(partitions.items())}
reference = partitions[("uniform", "uniform01")]
same = [k for k, v in partitions.items() if v == reference]
ours = (f"{len(partitions)} weight x input combinations -> {len(distinct)} distinct partition(s) of "
        f"the 9 platforms; EQC counts {counts}")
verdict = "REPRODUCED" if len(distinct) == 1 else (
    "PARTLY REPRODUCED" if len(same) > len(partitions) // 2 else "NOT REPRODUCED")
why = ("the classes come from the platforms' arithmetic order, not from the values" if
       len(distinct) == 1 else
       "most combinations give the same partition; the others differ where two orders happen to "
       "round alike on some values (a coincidence that depends on the data)" if verdict.startswith("PARTLY")
       else "the partition depends on the data: coincidental agreements between orders vary")
write_result("Weight and input distributions leave EQCs unchanged",
             "Section 3.5: twelve combinations of weight and input distributions on conv2d_11 give "
             "identical EQCs", ours, verdict, why,
             {"partitions": {f"{k[0]}/{k[1]}": sorted(sorted(c) for c in v)
                             for k, v in partitions.items()}})
