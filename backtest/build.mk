# backtest/: t2t-backtest, the backtester and sweep on the command line, a
# program beside the gateway: the strategy library on a price file or
# ticks (--prices, --ticks), a day file through the books and the tape
# (--itch, book/ and proto/), and that day through the gateway's engine
# with paper fills (--itch --paper, libengine).

BACKTEST_SRCS := backtest/backtest.c backtest/backtest_itch.c backtest/backtest_paper.c

$(BUILD)/t2t-backtest: $(call objs,$(BACKTEST_SRCS)) $(BUILD)/libengine.a \
		$(BUILD)/libbook.a $(BUILD)/libstrategy.a $(BUILD)/libproto.a $(BUILD)/libutil.a
	$(CC) $(CFLAGS) -o $@ $^ -lz $(LDLIBS)

BINS += $(BUILD)/t2t-backtest
INT_TESTS += tests/integration/backtest_cli.sh tests/integration/backtest_itch.sh
