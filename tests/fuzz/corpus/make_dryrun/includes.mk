DEPS = a.d
-include $(DEPS) \
  b.mk
include x.mk # c
