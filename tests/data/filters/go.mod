module verbs

go 1.19
