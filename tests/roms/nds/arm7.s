@ framelock Nintendo DS test ROM, the ARM7 program (arm-none-eabi-as, ARMv4T). Only the ARM7
@ can read the X and Y keys (EXTKEYIN, 0x04000136, bits 0-1, 0 = held): it copies them, again
@ and again, to a halfword in main RAM (0x02000020, pinned by nds.ld) as bits 0-1 with
@ 1 = held, where the ARM9 program (framelock_test.s) reads them once a frame. Main RAM is
@ zero at power-on, so before the first copy the ARM9 reads no key held.

        .syntax unified
        .cpu    arm7tdmi
        .arm

        .equ    EXTKEYIN,       0x04000136      @ bit 0 X, bit 1 Y (0 = held), 3 debug,
                                                @ 6 pen down, 7 hinge closed
        .equ    IME,            0x04000208

        .section .xy, "aw", %nobits
        .global xy_keys
xy_keys: .space 2

        .section .arm7, "ax"
        .global start7
start7:
        ldr     r0, =IME
        mov     r1, #0
        str     r1, [r0]                        @ no interrupts
        ldr     r0, =EXTKEYIN
        ldr     r1, =xy_keys
1:      ldrh    r2, [r0]
        mvn     r2, r2
        and     r2, r2, #3                      @ X, Y: 1 = held
        strh    r2, [r1]
        b       1b

        .ltorg
